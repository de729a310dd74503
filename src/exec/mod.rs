//! Planning and running a study: which runs it needs ([`plan`](mod@plan)), and the greedy search that
//! runs them stage by stage ([`runner`]), through a [`Backend`] that starts the processes: on
//! this machine ([`local`]) or as jobs of a Slurm cluster ([`slurm`]).

pub mod local;
pub mod plan;
pub mod runner;
pub mod slurm;

pub use local::{Backend, LocalBackend};
pub use plan::{Job, Plan, PlannedRun, Status, plan, record_hand_placed};
pub use runner::{Budget, Confidence, RunOptions, Summary, run};
pub use slurm::SlurmBackend;
