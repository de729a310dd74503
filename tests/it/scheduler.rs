//! The Slurm backend's reading of the scheduler, without a cluster: final job states (the
//! configuration's fault or the cluster's), `scontrol show job` and `squeue` lines, a config
//! file's `[cluster]` over the study's, the batch script's quoting. (No test name here holds the scheduler's name: `--skip slurm` leaves out
//! exactly the tests that need a cluster, in tests/it/slurm.rs.)

use perflab::exec::slurm::{JobState, merge, parse_scontrol, parse_squeue};
use perflab::study::command::quote;
use perflab::study::outcome::{JobEnd, SlurmState, job_end};
use perflab::study::{Cluster, FailureClass};

#[test]
fn final_states_say_whether_the_configuration_failed() {
    let end = |state: &str, cancelled_here| job_end(&SlurmState::parse(state), cancelled_here);
    assert_eq!(end("TIMEOUT", false), JobEnd::Failed(FailureClass::TimeLimit));
    assert_eq!(end("OUT_OF_MEMORY", false), JobEnd::Failed(FailureClass::JobOutOfMemory));
    assert_eq!(end("CANCELLED", true), JobEnd::Ran, "Ctrl-C: interrupted, not failed");
    assert_eq!(end("CANCELLED by 0", true), JobEnd::Ran, "as `sacct` spells it");
    assert_eq!(end("COMPLETED", false), JobEnd::Ran);
    assert_eq!(end("FAILED", false), JobEnd::Ran, "the node's report says why");
    // Ends of the cluster's own leave the runs pending.
    for state in ["CANCELLED", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE", "REVOKED", "UNKNOWN", "SPECIAL_EXIT"]
    {
        assert_eq!(end(state, false), JobEnd::Cluster, "{state}");
    }
    assert_eq!(job_end(&SlurmState::Unreachable, false), JobEnd::Cluster);
    // A state is printed as Slurm spells it, whether or not it has a name here.
    for state in ["PENDING", "COMPLETING", "NODE_FAIL", "SPECIAL_EXIT", "UNKNOWN"] {
        assert_eq!(SlurmState::parse(state).to_string(), state);
    }
    assert!(SlurmState::parse("COMPLETING").active() && !SlurmState::parse("SUSPENDED").active());
}

#[test]
fn scontrol_lines_are_read() {
    let line = "JobId=12 JobName=perflab:s:e/v UserId=root(0) JobState=TIMEOUT Reason=TimeLimit Dependency=(null) NodeList=n2 BatchHost=n2";
    assert_eq!(
        parse_scontrol(line),
        JobState::Ended { state: SlurmState::Timeout, node: Some("n2".into()), reason: Some("TimeLimit".into()) }
    );
    assert_eq!(parse_scontrol("slurm_load_jobs error: Invalid job id specified"), JobState::Unknown);
}

#[test]
fn squeue_lines_say_why_a_job_waits() {
    let active = |state: &str, reason: Option<&str>| JobState::Active {
        state: SlurmState::parse(state),
        reason: reason.map(Into::into),
    };
    assert_eq!(parse_squeue("PENDING Resources"), Some(active("PENDING", Some("Resources"))));
    assert_eq!(
        parse_squeue("PENDING ReqNodeNotAvail, UnavailableNodes:n1"),
        Some(active("PENDING", Some("ReqNodeNotAvail, UnavailableNodes:n1")))
    );
    assert_eq!(parse_squeue("RUNNING None"), Some(active("RUNNING", None)));
    assert_eq!(parse_squeue("RUNNING"), Some(active("RUNNING", None)));
    assert_eq!(parse_squeue(""), None);
}

#[test]
fn a_config_file_replaces_the_keys_it_sets() {
    let study = Cluster { partition: Some("a".into()), time_limit: Some("10".into()), ..Cluster::default() };
    let file = Cluster { partition: Some("gpu".into()), ..Cluster::default() };
    let merged = merge(Some(&study), Some(&file));
    assert_eq!(merged.partition.as_deref(), Some("gpu"));
    assert_eq!(merged.time_limit.as_deref(), Some("10"));
}

#[test]
fn script_words_are_quoted() {
    assert_eq!(quote("/a b/it's"), r"'/a b/it'\''s'");
}
