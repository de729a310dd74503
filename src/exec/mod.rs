//! Planning and running a study: which runs it needs ([`plan`](mod@plan)), and the greedy search that
//! runs them stage by stage ([`runner`]; one start's attempt in `attempt`, starts side by side in
//! `dispatch`, what a killed runner left in `recover`, the `--until-confident` policy in
//! [`confidence`]), through a [`Backend`] ([`backend`], the contract) that starts the processes:
//! on this machine ([`local`], with its ports in [`port`] and its processes in [`process`]) or as
//! jobs of a Slurm cluster ([`slurm`]).

mod attempt;
pub mod backend;
pub mod confidence;
mod dispatch;
pub mod evaluate;
pub mod gpus;
pub mod host;
pub mod local;
pub mod machine;
pub mod plan;
pub mod port;
pub mod process;
mod recover;
pub mod runner;
pub mod slurm;
pub mod tool;

pub use attempt::Summary;
pub use backend::{Backend, Event, Interrupt, Launch, Report};
pub use confidence::{Budget, Confidence};
pub use local::LocalBackend;
pub use plan::{Job, Plan, PlannedRun, StandingFailures, Status, plan, record_hand_placed};
pub use recover::Lock;
pub use runner::{RunOptions, run};
pub use slurm::SlurmBackend;
