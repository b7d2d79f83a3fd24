//! Where a measurement's cases run (docs/scale.md): on this machine (the default), or as
//! Slurm job steps on a cluster's GPU nodes (`executor: {slurm: {...}}` in manifest.yaml),
//! and over how many shards; and what a measurement records of it ([`Placement`], in its
//! fingerprint). kcamp itself, its lock and its decisions stay where it runs.

use serde::{Deserialize, Serialize};

/// The manifest's `executor:` section; empty, the cases run on this machine.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Executor {
    /// Each measuring step's cases run as steps of Slurm jobs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slurm: Option<SlurmConfig>,
}

/// How kcamp asks Slurm for a GPU node: one job per shard, each holding its node while the
/// measuring step runs its cases in it as job steps (`srun --jobid`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlurmConfig {
    /// `--partition`: where the GPU nodes are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition: Option<String>,
    /// `--gres` of each shard's job, e.g. `gpu:1` or `gpu:h200:1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gres: Option<String>,
    /// `--time` of each job (`MM`, `HH:MM:SS`, `D-HH:MM`): a measuring step that runs past
    /// it loses its job, and the shapes not yet measured are recorded TIMEOUT_FAIL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
    /// More `sbatch` options, each one argument (`--account=gpu`, `--qos=short`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extra_args: Vec<String>,
    /// Jobs a validation's shapes are spread over, each measuring its shapes on its own
    /// node's GPU (an array job of this many tasks).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub shards: u32,
}

fn one() -> u32 {
    1
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

/// More shards than this is a typo, not a cluster.
pub const MAX_SHARDS: u32 = 256;

/// Options kcamp sets itself on the jobs it submits; `extra_args` may not repeat them.
const OWN_OPTIONS: [&str; 8] = [
    "--array",
    "--wrap",
    "--parsable",
    "--job-name",
    "-J",
    "--output",
    "-o",
    "--wait",
];

impl SlurmConfig {
    /// What is wrong with the section, if anything: (field below `executor.slurm`, why).
    pub fn check(&self) -> std::result::Result<(), (String, String)> {
        let word = |name: &str, v: &Option<String>| match v {
            Some(s) if s.is_empty() || s.chars().any(|c| c.is_whitespace() || c.is_control()) => {
                Err((
                    name.to_owned(),
                    format!(
                        "must be one word without spaces, got {}",
                        crate::text::quote(s, 80)
                    ),
                ))
            }
            _ => Ok(()),
        };
        word("partition", &self.partition)?;
        word("gres", &self.gres)?;
        word("time", &self.time)?;
        if let Some(t) = &self.time
            && !t
                .chars()
                .all(|c| c.is_ascii_digit() || c == ':' || c == '-')
        {
            return Err((
                "time".into(),
                format!(
                    "'{t}' is not a Slurm time limit (minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS)"
                ),
            ));
        }
        for (i, a) in self.extra_args.iter().enumerate() {
            let at = format!("extra_args[{i}]");
            if !a.starts_with('-') || a.chars().any(char::is_control) {
                return Err((
                    at,
                    format!(
                        "{} is not an sbatch option: give each option as one argument, e.g. --account=gpu",
                        crate::text::quote(a, 80)
                    ),
                ));
            }
            let name = a.split('=').next().unwrap_or(a);
            if OWN_OPTIONS.contains(&name) {
                return Err((
                    at,
                    format!("kcamp sets {name} itself on the jobs it submits"),
                ));
            }
        }
        if !(1..=MAX_SHARDS).contains(&self.shards) {
            return Err((
                "shards".into(),
                format!("needs 1 to {MAX_SHARDS} shards, got {}", self.shards),
            ));
        }
        Ok(())
    }
}

/// How a measurement's cases were spread: recorded in its fingerprint (`placement`) when
/// they ran anywhere but on one adapter of this machine. Not compared between two
/// measurements: the adapter is, and every shard's had to be the same.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placement {
    /// `local` or `slurm`.
    pub executor: String,
    pub shards: Vec<Shard>,
}

/// One shard of a measurement: where it ran, and the shapes it measured (timed, each with
/// its pair, and checked).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: u32,
    /// The adapter's position among the identical adapters of its machine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adapter_index: Option<u32>,
    /// The adapter as wgpu names it, with its PCI bus where the driver reports one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adapter: Option<String>,
    /// The Slurm job (`42_0`: array job 42, task 0) and the node it ran on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    pub shapes: Vec<String>,
}

impl Placement {
    /// The shard that measured `label`.
    pub fn shard_of(&self, label: &str) -> Option<&Shard> {
        self.shards
            .iter()
            .find(|s| s.shapes.iter().any(|l| l == label))
    }

    /// One line: `slurm, 2 shards: job 42_0 on gpu01 (3 shapes), job 42_1 on gpu02 (3 shapes)`.
    pub fn describe(&self) -> String {
        let shards: Vec<String> = self
            .shards
            .iter()
            .map(|s| {
                let mut where_ = Vec::new();
                if let Some(j) = &s.job {
                    where_.push(format!("job {j}"));
                }
                if let Some(n) = &s.node {
                    where_.push(format!("on {n}"));
                }
                if let Some(i) = s.adapter_index {
                    where_.push(format!("adapter {i}"));
                }
                format!(
                    "{} ({})",
                    where_.join(" "),
                    crate::text::count(s.shapes.len(), "shape")
                )
            })
            .collect();
        format!(
            "{}, {}: {}",
            self.executor,
            crate::text::count(self.shards.len(), "shard"),
            shards.join(", ")
        )
    }
}

/// Test seam: `KCAMP_TEST_ADAPTER_COPIES=N` presents every adapter wgpu finds as `N`
/// identical ones, so that sharding over the identical GPUs of a host is tested on a
/// machine with one software adapter. Compiled only with the `test-support` feature: a
/// release binary sees its adapters as they are.
#[cfg(feature = "test-support")]
pub fn adapter_copies() -> usize {
    std::env::var("KCAMP_TEST_ADAPTER_COPIES")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|n| (1..=16).contains(n))
        .unwrap_or(1)
}

#[cfg(not(feature = "test-support"))]
#[inline(always)]
pub fn adapter_copies() -> usize {
    1
}

/// Shards `n` shapes over `shards` workers: shape `i` goes to shard `i % shards`, so that
/// shapes listed by size spread their cost.
pub fn shard_of_index(i: usize, shards: usize) -> usize {
    i % shards.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(yaml: &str) -> SlurmConfig {
        serde_yaml_ng::from_str::<Executor>(yaml)
            .unwrap()
            .slurm
            .unwrap()
    }

    #[test]
    fn the_slurm_section_parses_with_its_defaults() {
        let s = parse("slurm: {partition: gpu, gres: 'gpu:1', time: '00:30:00'}");
        assert_eq!(s.partition.as_deref(), Some("gpu"));
        assert_eq!(s.gres.as_deref(), Some("gpu:1"));
        assert_eq!(s.shards, 1);
        assert!(s.extra_args.is_empty());
        assert!(s.check().is_ok());
        let s = parse("slurm: {}");
        assert!(s.check().is_ok());
        assert!(serde_yaml_ng::from_str::<Executor>("slurm: {nodes: 2}").is_err());
        assert!(serde_yaml_ng::from_str::<Executor>("kubernetes: {}").is_err());
        assert_eq!(
            serde_yaml_ng::from_str::<Executor>("{}").unwrap().slurm,
            None
        );
    }

    #[test]
    fn options_kcamp_sets_and_malformed_values_are_refused_by_field() {
        let check = |yaml: &str| {
            let s = parse(yaml);
            s.check().unwrap_err()
        };
        let (f, m) = check("slurm: {extra_args: ['--array=0-3']}");
        assert_eq!(f, "extra_args[0]");
        assert!(m.contains("--array"), "{m}");
        let (f, m) = check("slurm: {extra_args: ['account=x']}");
        assert_eq!(f, "extra_args[0]");
        assert!(m.contains("not an sbatch option"), "{m}");
        assert_eq!(check("slurm: {time: '1 hour'}").0, "time");
        assert_eq!(check("slurm: {time: 'soon'}").0, "time");
        assert_eq!(check("slurm: {gres: ''}").0, "gres");
        assert_eq!(check("slurm: {shards: 0}").0, "shards");
    }

    #[test]
    fn shapes_are_dealt_round_robin_and_found_by_label() {
        let of: Vec<usize> = (0..5).map(|i| shard_of_index(i, 2)).collect();
        assert_eq!(of, [0, 1, 0, 1, 0]);
        assert_eq!(shard_of_index(3, 0), 0);
        let p = Placement {
            executor: "slurm".into(),
            shards: vec![
                Shard {
                    index: 0,
                    adapter_index: None,
                    adapter: None,
                    job: Some("42_0".into()),
                    node: Some("gpu01".into()),
                    shapes: vec!["a".into(), "c".into()],
                },
                Shard {
                    index: 1,
                    adapter_index: None,
                    adapter: None,
                    job: Some("42_1".into()),
                    node: None,
                    shapes: vec!["b".into()],
                },
            ],
        };
        assert_eq!(p.shard_of("b").map(|s| s.index), Some(1));
        assert_eq!(p.shard_of("z"), None);
        assert_eq!(
            p.describe(),
            "slurm, 2 shards: job 42_0 on gpu01 (2 shapes), job 42_1 (1 shape)"
        );
    }
}
