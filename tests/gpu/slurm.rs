//! Slurm as the executor of measurements (docs/scale.md), on a one-node cluster on
//! localhost that each test starts (munged, slurmctld, slurmd, in a temporary directory,
//! on free ports) and stops after: BASELINE, a validation sharded over two jobs, accept
//! and report, with the verdicts of the same campaign measured here; a harness command
//! whose invocations run as job steps; a cancel while the job waits for its node and one
//! while a case runs, each leaving no job.
//!
//! They need Slurm's daemons and clients (`slurm-wlm`, `munge`) and root (slurmd starts
//! the job steps). Without them they print why and pass, unless `KCAMP_REQUIRE_SLURM=1`
//! (CI sets it and installs Slurm), where they fail.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::common::{self, alive, wait_for};

/// A cluster of one node, its daemons children of the test; dropped, it cancels every
/// job, waits for the job steps to end and stops the daemons.
struct Cluster {
    dir: tempfile::TempDir,
    daemons: Vec<Child>,
}

/// Why the Slurm tests cannot run here, if they cannot.
fn missing() -> Option<String> {
    for tool in [
        "munged",
        "munge",
        "unmunge",
        "slurmctld",
        "slurmd",
        "sbatch",
        "srun",
        "squeue",
        "scancel",
        "scontrol",
        "sinfo",
    ] {
        let found = std::env::var_os("PATH").is_some_and(|p| {
            std::env::split_paths(&p)
                .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/sbin")])
                .any(|d| d.join(tool).is_file())
        });
        if !found {
            return Some(format!(
                "{tool} is not installed (apt-get install slurm-wlm munge)"
            ));
        }
    }
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some("slurmd must run as root to start job steps".into());
    }
    None
}

fn sbin(tool: &str) -> PathBuf {
    ["/usr/sbin", "/sbin"]
        .iter()
        .map(|d| Path::new(d).join(tool))
        .find(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from(tool))
}

/// How long each daemon of a test cluster may take to be ready: generous, since the first
/// start on a fresh, loaded machine is the slow one and a wait ends as soon as it is ready.
const READY_WITHIN: Duration = Duration::from_secs(180);

/// Whether munged at `socket` signs a credential that it then verifies (`munge -n |
/// unmunge`).
fn munge_round_trip(socket: &Path) -> bool {
    if !socket.exists() {
        return false;
    }
    let Ok(cred) = Command::new("munge")
        .arg("-n")
        .arg("-S")
        .arg(socket)
        .stderr(Stdio::null())
        .output()
    else {
        return false;
    };
    if !cred.status.success() {
        return false;
    }
    let Ok(mut unmunge) = Command::new("unmunge")
        .arg("-S")
        .arg(socket)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
    else {
        return false;
    };
    use std::io::Write;
    let wrote = unmunge
        .stdin
        .take()
        .is_some_and(|mut i| i.write_all(&cred.stdout).is_ok());
    unmunge.wait().is_ok_and(|s| s.success()) && wrote
}

/// A port nothing listens on now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Spawn a daemon in the foreground that dies with this thread should the test process
/// be killed before the cluster is dropped.
fn daemon(cmd: &mut Command, log: &Path) -> Child {
    use std::os::unix::process::CommandExt;
    let out = std::fs::File::create(log).unwrap();
    cmd.stdin(Stdio::null())
        .stdout(out.try_clone().unwrap())
        .stderr(out);
    // SAFETY: prctl is async-signal-safe.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    cmd.spawn().unwrap()
}

impl Cluster {
    /// A running cluster, or None (after saying why) where the tests may skip.
    fn start() -> Option<Cluster> {
        if let Some(why) = missing() {
            assert!(
                std::env::var("KCAMP_REQUIRE_SLURM").as_deref() != Ok("1"),
                "KCAMP_REQUIRE_SLURM=1 but {why}"
            );
            eprintln!("skipping the Slurm test: {why}");
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let munge = d.join("munge");
        std::fs::create_dir_all(&munge).unwrap();
        std::fs::create_dir_all(d.join("state")).unwrap();
        std::fs::create_dir_all(d.join("spool")).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
        let key: Vec<u8> = (0..128u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8 ^ std::process::id() as u8)
            .collect();
        std::fs::write(munge.join("munge.key"), key).unwrap();
        std::fs::set_permissions(
            munge.join("munge.key"),
            std::fs::Permissions::from_mode(0o600),
        )
        .unwrap();
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .unwrap()
            .trim()
            .to_owned();
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let conf = format!(
            "ClusterName=kcamptest\n\
             SlurmctldHost={host}(127.0.0.1)\n\
             SlurmctldPort={}\nSlurmdPort={}\n\
             SlurmUser=root\nSlurmdUser=root\n\
             AuthType=auth/munge\nCredType=cred/munge\n\
             AuthInfo=socket={d}/munge/munge.sock\n\
             StateSaveLocation={d}/state\nSlurmdSpoolDir={d}/spool\n\
             SlurmctldPidFile={d}/slurmctld.pid\nSlurmdPidFile={d}/slurmd.pid\n\
             SlurmctldLogFile={d}/slurmctld.log\nSlurmdLogFile={d}/slurmd.log\n\
             ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n\
             SchedulerType=sched/builtin\n\
             SelectType=select/cons_tres\nSelectTypeParameters=CR_CPU\n\
             JobCompType=jobcomp/none\nAccountingStorageType=accounting_storage/none\n\
             MpiDefault=none\nReturnToService=2\nInactiveLimit=0\nKillWait=2\nMinJobAge=300\n\
             NodeName=kcamp-node NodeAddr=127.0.0.1 NodeHostname={host} CPUs={cpus} State=UNKNOWN\n\
             PartitionName=debug Nodes=kcamp-node Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4\n",
            free_port(),
            free_port(),
            d = d.display(),
        );
        std::fs::write(d.join("slurm.conf"), conf).unwrap();
        let mut cluster = Cluster {
            dir,
            daemons: Vec::new(),
        };
        let d = cluster.dir.path().to_owned();
        cluster.daemons.push(daemon(
            Command::new(sbin("munged"))
                .args(["-F", "--force"])
                .arg(format!("--key-file={}", munge.join("munge.key").display()))
                .arg(format!("--socket={}", munge.join("munge.sock").display()))
                .arg(format!("--pid-file={}", munge.join("munged.pid").display()))
                .arg(format!("--log-file={}", munge.join("munged.log").display()))
                .arg(format!("--seed-file={}", munge.join("seed").display())),
            &d.join("munged.out"),
        ));
        // Each daemon is started once the one it needs answers, not once its files exist:
        // a slurmd that cannot reach slurmctld registers only at the controller's next
        // ping, minutes later, and the first start after installing (cold caches, munged
        // seeding its pool) is slow on a busy machine.
        let socket = munge.join("munge.sock");
        cluster.ready("munged to sign and verify a credential", || {
            munge_round_trip(&socket).then_some(())
        });
        let conf = d.join("slurm.conf");
        cluster.daemons.push(daemon(
            Command::new(sbin("slurmctld"))
                .arg("-D")
                .arg("-f")
                .arg(&conf),
            &d.join("slurmctld.out"),
        ));
        cluster.ready("slurmctld to answer `scontrol ping`", || {
            let out = cluster.client("scontrol", &["ping"]);
            out.contains("is UP").then_some(())
        });
        cluster.daemons.push(daemon(
            Command::new(sbin("slurmd"))
                .arg("-D")
                .arg("-f")
                .arg(&conf)
                .args(["-N", "kcamp-node"]),
            &d.join("slurmd.out"),
        ));
        cluster.ready("the node to be idle (`sinfo -h -o %T`)", || {
            let out = cluster.client("sinfo", &["-h", "-o", "%T"]);
            (out.trim() == "idle").then_some(())
        });
        Some(cluster)
    }

    /// Poll `found` until it holds, for at most [`READY_WITHIN`]; a daemon that exits, or
    /// the limit, fails the test with every daemon's log and what Slurm says of the node.
    fn ready(&self, what: &str, mut found: impl FnMut() -> Option<()>) {
        let start = std::time::Instant::now();
        loop {
            if found().is_some() {
                return;
            }
            let exited = self.daemons.iter().find_map(|c| {
                let pid = c.id();
                // A zombie is a daemon that exited; /proc says so without reaping it.
                std::fs::read_to_string(format!("/proc/{pid}/stat"))
                    .map_or(true, |s| {
                        s.rsplit(')')
                            .next()
                            .is_some_and(|r| r.trim_start().starts_with('Z'))
                    })
                    .then_some(pid)
            });
            if let Some(pid) = exited {
                panic!(
                    "waiting for {what}: daemon {pid} exited after {:.1} s\n{}",
                    start.elapsed().as_secs_f64(),
                    self.logs()
                );
            }
            if start.elapsed() > READY_WITHIN {
                panic!(
                    "timed out after {} s waiting for {what}\n{}",
                    READY_WITHIN.as_secs(),
                    self.logs()
                );
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// Every daemon's log and output, and what the clients say, for a failure message.
    fn logs(&self) -> String {
        let d = self.dir.path();
        let mut out = String::new();
        for name in [
            "munge/munged.log",
            "munged.out",
            "slurmctld.log",
            "slurmctld.out",
            "slurmd.log",
            "slurmd.out",
        ] {
            let text = std::fs::read_to_string(d.join(name))
                .unwrap_or_else(|e| format!("(not readable: {e})"));
            let tail: Vec<&str> = text.lines().rev().take(60).collect();
            out.push_str(&format!("--- {name} (last {} lines)\n", tail.len()));
            for line in tail.into_iter().rev() {
                out.push_str(line);
                out.push('\n');
            }
        }
        for (tool, args) in [
            ("scontrol", &["ping"][..]),
            ("sinfo", &["-N", "-l"][..]),
            ("scontrol", &["show", "node", "kcamp-node"][..]),
        ] {
            let o = Command::new(tool)
                .args(args)
                .env("SLURM_CONF", self.conf())
                .output();
            out.push_str(&format!("--- {tool} {}\n", args.join(" ")));
            match o {
                Ok(o) => {
                    out.push_str(&String::from_utf8_lossy(&o.stdout));
                    out.push_str(&String::from_utf8_lossy(&o.stderr));
                }
                Err(e) => out.push_str(&format!("(not run: {e})\n")),
            }
        }
        out
    }

    fn conf(&self) -> PathBuf {
        self.dir.path().join("slurm.conf")
    }

    /// A Slurm client's stdout (empty when it fails).
    fn client(&self, tool: &str, args: &[&str]) -> String {
        Command::new(tool)
            .args(args)
            .env("SLURM_CONF", self.conf())
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default()
    }

    /// The jobs Slurm lists as pending, running or completing.
    fn jobs(&self) -> String {
        self.client("squeue", &["-h", "-o", "%i %T %j"])
    }

    /// Every job ever submitted and its state.
    fn history(&self) -> String {
        self.client("squeue", &["-h", "-r", "-t", "all", "-o", "%i %T %j"])
    }

    /// `kcamp --json -C dir` against this cluster.
    fn kcamp(&self, dir: &Path) -> Command {
        let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("kcamp"));
        cmd.arg("--json")
            .arg("-C")
            .arg(dir)
            .env("SLURM_CONF", self.conf())
            .env(
                "XDG_RUNTIME_DIR",
                std::env::var("XDG_RUNTIME_DIR").unwrap_or_else(|_| "/tmp".into()),
            )
            .env(
                "XDG_DATA_HOME",
                dir.parent().unwrap_or(dir).join("xdg-data"),
            )
            .env_remove("KCAMP_FAILPOINT")
            .env_remove("TEST_TIMEOUT_SEC");
        cmd
    }

    fn run(&self, dir: &Path, args: &[&str], codes: &[i32]) -> Value {
        let out = self.kcamp(dir).args(args).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.code().is_some_and(|c| codes.contains(&c)),
            "kcamp {args:?}: {:?}\nstdout {stdout}\nstderr {}\nslurm jobs: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr),
            self.history()
        );
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
    }

    fn assert_no_job(&self, after: &str) {
        let jobs = self.jobs();
        assert!(jobs.trim().is_empty(), "jobs left after {after}: {jobs}");
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for id in self
            .jobs()
            .lines()
            .filter_map(|l| l.split_whitespace().next())
        {
            let _ = self.client("scancel", &[id]);
        }
        // The job steps' slurmstepd are not our children: their job's directory in the
        // spool goes when they do.
        let spool = self.dir.path().join("spool");
        let steps_left = || {
            std::fs::read_dir(&spool).is_ok_and(|d| {
                d.filter_map(|e| e.ok())
                    .any(|e| e.file_name().to_string_lossy().starts_with("job"))
            })
        };
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        while steps_left() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(100));
        }
        for child in self.daemons.iter_mut().rev() {
            // SAFETY: kill(2) on our own child's pid.
            unsafe {
                libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
            }
            let deadline = std::time::Instant::now() + Duration::from_secs(10);
            while matches!(child.try_wait(), Ok(None)) && std::time::Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

const SHAPES: &str = "- {label: s16, M: 16, N: 16, K: 16}\n- {label: r24x40x8, M: 24, N: 40, K: 8}\n- {label: s32, M: 32, N: 32, K: 32}\n- {label: b2s16, B: 2, M: 16, N: 16, K: 16}\n";

fn set_executor(dir: &Path, section: &str) {
    let path = dir.join("manifest.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let kept: String = match text.find("executor:") {
        Some(at) => text[..at].to_owned(),
        None => text,
    };
    std::fs::write(&path, format!("{kept}{section}")).unwrap();
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_campaign_measured_through_slurm_reaches_the_verdicts_of_a_local_one() {
    let Some(cluster) = Cluster::start() else {
        return;
    };
    let (tmp, dir) = common::gemm_campaign(SHAPES);
    set_executor(&dir, "executor:\n  slurm:\n    time: '10'\n");
    cluster.run(&dir, &["baseline"], &[0]);
    cluster.assert_no_job("baseline");
    assert!(
        !dir.join("peaks.json").exists(),
        "no peaks of this machine's adapter for a node's cases"
    );
    let baseline = read_json(&dir.join("rounds/round-1/artifacts/result.json"));
    let placement = &baseline["fingerprint"]["placement"];
    assert_eq!(placement["executor"], "slurm", "{baseline}");
    assert_eq!(placement["shards"].as_array().unwrap().len(), 1);
    assert_eq!(placement["shards"][0]["node"], "kcamp-node", "{placement}");
    assert_eq!(
        placement["shards"][0]["shapes"].as_array().unwrap().len(),
        4
    );
    assert!(
        placement["shards"][0]["job"]
            .as_str()
            .unwrap()
            .ends_with("_0"),
        "{placement}"
    );

    // The same campaign measured on this machine, from the same BASELINE on.
    let local = tmp.path().join("local");
    common::copy_dir(&dir, &local);
    set_executor(&local, "");
    set_executor(&dir, "executor:\n  slurm:\n    time: '10'\n    shards: 2\n");
    for d in [&dir, &local] {
        common::edit_kernel(d, "the same kernel, a new hash");
        cluster.run(d, &["round", "new", "--hypothesis", "unchanged"], &[0]);
    }
    let sharded = cluster.run(&dir, &["validate", "--full"], &[0, 1]);
    cluster.assert_no_job("a validation sharded over two jobs");
    let here = cluster.run(&local, &["validate", "--full"], &[0, 1]);
    common::assert_same_judgement(&sharded["report"], &here["report"], "slurm against local");
    assert_eq!(sharded["report"]["paired"], true, "{sharded}");
    let round = read_json(&dir.join("rounds/round-2/artifacts/fingerprint.json"));
    let shards = round["placement"]["shards"].as_array().unwrap().clone();
    assert_eq!(shards.len(), 2, "{round}");
    // Shapes dealt round robin, each measured with its pair in its own job.
    assert_eq!(shards[0]["shapes"], serde_json::json!(["s16", "s32"]));
    assert_eq!(
        shards[1]["shapes"],
        serde_json::json!(["r24x40x8", "b2s16"])
    );
    assert_ne!(shards[0]["job"], shards[1]["job"]);
    let jobs = cluster.history();
    assert!(
        jobs.lines().filter(|l| l.contains("kcamp-")).count() >= 3,
        "one array for BASELINE, one of two tasks for the validation: {jobs}"
    );

    for d in [&dir, &local] {
        cluster.run(
            d,
            &[
                "accept",
                "--force",
                "--reason",
                "the test's unchanged kernel",
            ],
            &[0],
        );
    }
    cluster.assert_no_job("accept");
    let reported = cluster.run(&dir, &["report"], &[0, 1]);
    let reported_here = cluster.run(&local, &["report"], &[0, 1]);
    common::assert_same_judgement(&reported, &reported_here, "report: slurm against local");
    cluster.assert_no_job("report");
}

#[test]
fn a_cancel_leaves_no_job_whether_it_waits_for_its_node_or_runs_a_case() {
    let Some(cluster) = Cluster::start() else {
        return;
    };
    let (_tmp, dir) = common::gemm_campaign("- {label: big, M: 16, N: 16, K: 16}\n");
    cluster.run(&dir, &["baseline", "--no-peak"], &[0]);
    let manifest = std::fs::read_to_string(dir.join("manifest.yaml")).unwrap();
    std::fs::write(
        dir.join("manifest.yaml"),
        manifest
            .replace("  M: 16", "  M: 1024")
            .replace("  N: 16", "  N: 1024")
            .replace("  K: 16", "  K: 1024"),
    )
    .unwrap();
    cluster.run(
        &dir,
        &["round", "new", "--hypothesis", "to be cancelled"],
        &[0],
    );

    // A job that may not start for ten minutes: the live panel says it waits.
    set_executor(
        &dir,
        "executor:\n  slurm:\n    extra_args: ['--begin=now+600']\n",
    );
    let validate = cluster
        .kcamp(&dir)
        .args(["validate", "--full"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let live = dir.join("live/progress.json");
    let doc = wait_for(
        "the pending job in the live panel",
        Duration::from_secs(180),
        || {
            let doc: Value = serde_json::from_str(&std::fs::read_to_string(&live).ok()?).ok()?;
            (doc["shards"][0]["state"] == "pending").then_some(doc)
        },
    );
    assert_eq!(doc["state"], "pending", "{doc}");
    assert!(!cluster.jobs().trim().is_empty(), "the job is queued");
    cancelled(&cluster, validate, &dir, &[]);

    // A job that runs, its worker in the 1024³ case.
    set_executor(&dir, "executor:\n  slurm: {}\n");
    let validate = cluster
        .kcamp(&dir)
        .args(["validate", "--full"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let srun = wait_for("the worker's job step", Duration::from_secs(180), || {
        if !common::in_a_timed_case(&dir) {
            return None;
        }
        common::child_running(validate.id(), "srun")
    });
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&live).unwrap()).unwrap();
    assert_eq!(doc["shards"][0]["state"], "running", "{doc}");
    assert_eq!(doc["shards"][0]["label"], "big", "{doc}");
    cancelled(&cluster, validate, &dir, &[srun]);
    let steps = cluster.client("squeue", &["-h", "-s"]);
    assert!(steps.trim().is_empty(), "job steps left: {steps}");

    // A job that ends under the case (here cancelled by someone else): the shape fails,
    // its reason naming the job and how it ended.
    let validate = cluster
        .kcamp(&dir)
        .args(["validate", "--full"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for("the worker's job step", Duration::from_secs(180), || {
        common::in_a_timed_case(&dir).then_some(())
    });
    let job = cluster.jobs();
    let id = job
        .split_whitespace()
        .next()
        .unwrap()
        .split('_')
        .next()
        .unwrap()
        .to_owned();
    cluster.client("scancel", &[&id]);
    let out = validate.wait_with_output().unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{doc}");
    let reason = doc["report"]["failures"][0]["reason"]
        .as_str()
        .or_else(|| doc["failures"][0]["reason"].as_str())
        .unwrap_or_else(|| panic!("no failure reason: {doc}"));
    assert!(
        reason.contains(&format!("slurm job {id}_0 on kcamp-node ended CANCELLED")),
        "{reason}"
    );
    cluster.assert_no_job("a job cancelled by someone else");
}

/// SIGTERM to a running validate: it exits 2 (cancelled), nothing is recorded, and no job
/// nor any process of the run is left.
fn cancelled(cluster: &Cluster, mut validate: Child, dir: &Path, pids: &[u32]) {
    // SAFETY: kill(2) sends a signal to our own child.
    unsafe {
        libc::kill(validate.id() as libc::pid_t, libc::SIGTERM);
    }
    let status = wait_for("validate to exit", Duration::from_secs(60), || {
        validate.try_wait().unwrap()
    });
    let mut stdout = String::new();
    use std::io::Read;
    validate
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    assert_eq!(status.code(), Some(2), "{stdout}");
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc["error"]["kind"], "cancelled", "{doc}");
    cluster.assert_no_job("a cancel");
    for &pid in pids {
        wait_for(
            "the run's processes to end",
            Duration::from_secs(30),
            || (!alive(pid)).then_some(()),
        );
    }
    assert!(
        !dir.join("live/progress.json").exists(),
        "live progress reset"
    );
    assert!(!dir.join("rounds/round-2/artifacts/gate.json").exists());
}

#[test]
fn a_harness_command_runs_as_job_steps_and_is_judged_as_here() {
    let Some(cluster) = Cluster::start() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::harness_campaign(tmp.path(), &common::fixture("campaign"));
    // Each invocation says where it ran, in a file outside the campaign (a measurement
    // during which anything in the campaign changed is refused).
    let log_steps = |campaign: &std::path::Path, steps: &std::path::Path| {
        let path = campaign.join("manifest.yaml");
        let text = std::fs::read_to_string(&path).unwrap();
        let echo = format!(
            "quick_command: \"echo $SLURM_JOB_ID $SLURM_STEP_ID >> {}; sh harness.sh",
            steps.display()
        );
        std::fs::write(&path, text.replace("quick_command: \"sh harness.sh", &echo)).unwrap();
    };
    let local = tmp.path().join("local");
    common::copy_dir(&dir, &local);
    let (slurm_steps, local_steps) = (
        tmp.path().join("slurm-steps"),
        tmp.path().join("local-steps"),
    );
    log_steps(&dir, &slurm_steps);
    log_steps(&local, &local_steps);
    set_executor(&dir, "executor:\n  slurm: {time: '10'}\n");
    for d in [&dir, &local] {
        cluster.run(d, &["baseline"], &[0]);
        std::fs::write(d.join("kernel/numbers"), "better.csv").unwrap();
        cluster.run(d, &["round", "new", "--hypothesis", "better numbers"], &[0]);
    }
    let slurm = cluster.run(&dir, &["validate"], &[0, 1]);
    let here = cluster.run(&local, &["validate"], &[0, 1]);
    cluster.assert_no_job("a harness validation");
    assert_eq!(
        slurm["report"]["verdict"], here["report"]["verdict"],
        "{slurm}\n{here}"
    );
    assert_eq!(slurm["report"]["paired"], true, "{slurm}");
    let steps = std::fs::read_to_string(&slurm_steps).unwrap();
    let lines: Vec<&str> = steps.lines().collect();
    // BASELINE's one invocation, then the incumbent and the candidate alternating.
    assert!(lines.len() >= 3, "{steps}");
    for l in &lines {
        let mut parts = l.split_whitespace();
        let job = parts.next().unwrap_or("");
        assert!(
            !job.is_empty() && job.chars().all(|c| c.is_ascii_digit()),
            "an invocation ran outside a job step: {steps}"
        );
        assert!(parts.next().is_some(), "no step id: {steps}");
    }
    let local_steps = std::fs::read_to_string(&local_steps).unwrap();
    assert!(
        local_steps.lines().all(|l| l.trim().is_empty()),
        "{local_steps}"
    );
}
