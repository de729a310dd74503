//! The Slurm backend's reading of the scheduler, without a cluster: final job states as failure
//! classes, `scontrol show job` lines, a config file's `[cluster]` over the study's, the batch
//! script's quoting. (No test name here holds the scheduler's name: `--skip slurm` leaves out
//! exactly the tests that need a cluster, in tests/it/slurm.rs.)

use perflab::exec::slurm::{JobState, merge, parse_scontrol};
use perflab::study::command::quote;
use perflab::study::outcome::cluster_failure;
use perflab::study::{Cluster, FailureClass};

#[test]
fn final_states_map_to_failure_classes() {
    assert_eq!(cluster_failure("TIMEOUT", false), Some(FailureClass::TimeLimit));
    assert_eq!(cluster_failure("NODE_FAIL", false), Some(FailureClass::NodeFailure));
    assert_eq!(cluster_failure("OUT_OF_MEMORY", false), Some(FailureClass::JobOutOfMemory));
    assert_eq!(cluster_failure("CANCELLED", false), Some(FailureClass::Cancelled));
    assert_eq!(cluster_failure("CANCELLED", true), None, "Ctrl-C: interrupted, not failed");
    assert_eq!(cluster_failure("COMPLETED", false), None);
    assert_eq!(cluster_failure("FAILED", false), None, "the node's report says why");
}

#[test]
fn scontrol_lines_are_read() {
    let line = "JobId=12 JobName=perflab:s:e/v UserId=root(0) JobState=TIMEOUT Reason=TimeLimit Dependency=(null) NodeList=n2 BatchHost=n2";
    assert_eq!(
        parse_scontrol(line),
        JobState::Ended { state: "TIMEOUT".into(), node: Some("n2".into()), reason: Some("TimeLimit".into()) }
    );
    assert_eq!(parse_scontrol("slurm_load_jobs error: Invalid job id specified"), JobState::Unknown);
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
