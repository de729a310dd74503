//! Running a stage's starts side by side: slots with their share of the machine's GPUs and
//! ports, a thread a start, and what each tells the runner while it works.

use super::attempt::{Slot, Summary, execute};
use super::backend::{Backend, Event, Interrupt};
use super::plan::Job;
use crate::study::Study;
use crate::study::command::{self, Port};
use anyhow::bail;
use std::collections::BTreeMap;
use std::time::Duration;

/// What the threads running engine starts tell the runner's thread.
pub(super) enum Message {
    Step(String),
    Waiting { config: String, elapsed: Duration, timeout: Duration, last_line: String },
    Ended { slot: usize, result: anyhow::Result<Summary> },
}

impl Message {
    fn of(event: Event) -> Message {
        match event {
            Event::Step(text) => Message::Step(text.to_string()),
            Event::Waiting { config, elapsed, timeout, last_line } => {
                Message::Waiting { config: config.to_string(), elapsed, timeout, last_line: last_line.to_string() }
            }
        }
    }
}

/// A stage's engine starts: its jobs, how many runs the study has still to go (counted down in
/// each start's header), and the header that announces a start.
#[derive(Clone, Copy)]
pub(super) struct StageStarts<'a> {
    pub jobs: &'a [&'a Job],
    pub total: usize,
    pub header: &'a dyn Fn(&Job, usize) -> String,
    pub recorder: &'a std::sync::Arc<super::machine::Recorder>,
}

/// Runs a stage's engine starts, as many at once as `jobs` (else the backend's capacity), the
/// GPUs and fixed ports allow; returns when every one has ended. A problem of perflab's own
/// stops new starts and is returned once the running ones have ended.
pub(super) fn dispatch(
    study: &Study,
    stage: &StageStarts,
    backend: &dyn Backend,
    limit: Option<usize>,
    interrupt: &Interrupt,
    log: &mut dyn FnMut(Event),
) -> anyhow::Result<Summary> {
    let StageStarts { jobs, total, header, recorder } = *stage;
    let limit = limit.or(backend.capacity()).unwrap_or(usize::MAX).max(1);
    let mut slots =
        Slots { devices: backend.devices(), busy: vec![false; backend.devices().len()], taken: BTreeMap::new() };
    // Every share must fit the machine before anything starts.
    if let Some(job) = jobs.iter().find(|j| !slots.fits(j)) {
        bail!("`{}` takes {} GPUs; `[local]` declares {}", job.reference(), slots.share(job), slots.devices.len());
    }
    let mut summary = Summary::default();
    let mut queue: Vec<&Job> = jobs.to_vec();
    let mut to_go = total;
    let mut failure: Option<anyhow::Error> = None;
    let named = limit > 1 && jobs.len() > 1;
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::channel::<Message>();
        loop {
            let mut i = 0;
            while i < queue.len() && slots.taken.len() < limit && failure.is_none() && !interrupt.requested() {
                let job = queue[i];
                let Some((index, devices)) = slots.claim(job, fixed_port(study, job)) else {
                    i += 1;
                    continue;
                };
                queue.remove(i);
                let slot = Slot { index, devices, named, recorder: recorder.clone() };
                log(Event::Step(&slots.start_line(header(job, to_go), &slot)));
                to_go = to_go.saturating_sub(job.profiles.len());
                let tx = tx.clone();
                scope.spawn(move || {
                    let send = |m: Message| {
                        let _ = tx.send(m);
                    };
                    let result = execute(study, job, backend, interrupt, &slot, &mut |event| send(Message::of(event)));
                    send(Message::Ended { slot: slot.index, result });
                });
            }
            if slots.taken.is_empty() {
                break;
            }
            match rx.recv() {
                Ok(Message::Step(text)) => log(Event::Step(&text)),
                Ok(Message::Waiting { config, elapsed, timeout, last_line }) => {
                    log(Event::Waiting { config: &config, elapsed, timeout, last_line: &last_line })
                }
                Ok(Message::Ended { slot, result }) => {
                    slots.release(slot);
                    match result {
                        Ok(done) => summary.add(&done),
                        Err(e) => {
                            failure.get_or_insert(e);
                        }
                    }
                }
                Err(_) => break,
            }
        }
    });
    match failure {
        Some(e) => Err(e),
        None => Ok(summary),
    }
}

/// The port a job's engine always listens on, when its command fixes one.
pub(super) fn fixed_port(study: &Study, job: &Job) -> Option<u16> {
    let engine = study.engine(&job.config.engine)?;
    match command::engine_port(&job.argv, engine.ready_url.as_deref()) {
        Ok(Port::Fixed(p)) => Some(p),
        _ => None,
    }
}

/// The starts in flight: slot → (configuration, its fixed port, the GPUs it holds).
pub(super) struct Slots<'d> {
    devices: &'d [String],
    busy: Vec<bool>,
    taken: BTreeMap<usize, (String, Option<u16>, Vec<usize>)>,
}

impl Slots<'_> {
    /// The GPUs a job takes: its share, or the whole machine.
    fn share(&self, job: &Job) -> usize {
        job.gpus.map_or(self.devices.len(), |g| g as usize)
    }

    fn fits(&self, job: &Job) -> bool {
        self.devices.is_empty() || self.share(job) <= self.devices.len()
    }

    /// A slot and GPUs for a job, when enough GPUs are free and no start in flight listens on
    /// its fixed port.
    fn claim(&mut self, job: &Job, port: Option<u16>) -> Option<(usize, Vec<String>)> {
        let free: Vec<usize> = (0..self.devices.len()).filter(|d| !self.busy[*d]).collect();
        let need = if self.devices.is_empty() { 0 } else { self.share(job) };
        let port_free = port.is_none_or(|p| self.taken.values().all(|(_, q, _)| *q != Some(p)));
        if free.len() < need || !port_free {
            return None;
        }
        let held: Vec<usize> = free[..need].to_vec();
        for d in &held {
            self.busy[*d] = true;
        }
        let index = (0..).find(|n| !self.taken.contains_key(n)).unwrap_or(0);
        let devices = held.iter().map(|d| self.devices[*d].clone()).collect();
        self.taken.insert(index, (job.reference().to_string(), port, held));
        Some((index, devices))
    }

    fn release(&mut self, slot: usize) {
        if let Some((_, _, held)) = self.taken.remove(&slot) {
            for d in held {
                self.busy[d] = false;
            }
        }
    }

    /// The line that announces a start: its header, its GPUs, what else is in flight.
    fn start_line(&self, mut line: String, slot: &Slot) -> String {
        if !slot.devices.is_empty() {
            line.push_str(&format!(" on GPU {}", slot.devices.join(",")));
        }
        if self.taken.len() > 1 {
            let names: Vec<&str> = self.taken.values().map(|(n, _, _)| n.as_str()).collect();
            line.push_str(&format!("; in flight: {}", names.join(", ")));
        }
        line
    }
}
