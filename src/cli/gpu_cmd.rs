//! `kcamp adapters`.

use super::{AdapterArgs, CmdOutput, Ctx};
use kcamp_core::manifest::AdapterSelector;
use kcamp_core::next::{Command, NextStep};
use kcamp_core::{Error, Result};
use kcamp_gpu::{AdapterReport, list_adapters};

/// Lists the adapters wgpu sees (filtered by `--adapter` / `--backend`).
pub fn adapters(_ctx: &Ctx, a: &AdapterArgs) -> Result<CmdOutput> {
    let selector = AdapterSelector {
        name: a.adapter.clone(),
        backend: a.backend.clone(),
        ..AdapterSelector::default()
    };
    let mut shown = Vec::new();
    for report in list_adapters() {
        if report.matches(&selector)? {
            shown.push(report);
        }
    }
    let json = serde_json::to_value(&shown)
        .map_err(|e| Error::Internal(format!("serializing adapters: {e}")))?;
    let human = if shown.is_empty() {
        "no adapter matches (run without --adapter/--backend to list all)".to_owned()
    } else {
        shown.iter().map(render).collect::<Vec<_>>().join("\n")
    };
    let listed: Vec<(&str, &str)> = shown
        .iter()
        .map(|r| (r.name.as_str(), r.backend.as_str()))
        .collect();
    Ok(CmdOutput::ok(json, human).with_next(next_steps(&listed)))
}

/// What to do with the adapters listed (name, backend): pick one by name, and by backend
/// too where one name selects adapters of several backends (Mesa's llvmpipe is both a
/// Vulkan and a GL adapter).
fn next_steps(listed: &[(&str, &str)]) -> Vec<NextStep> {
    if listed.is_empty() {
        return vec![NextStep::run(Command::Adapters).why("every adapter wgpu sees; scripts/ensure-driver.sh installs Mesa's software driver where there is none")];
    }
    // `--adapter NAME` selects every adapter whose name contains NAME (case-insensitive).
    let alike = listed.iter().find_map(|(name, backend)| {
        let lower = name.to_lowercase();
        let others: Vec<&str> = listed
            .iter()
            .filter(|(n, b)| b != backend && n.to_lowercase().contains(&lower))
            .map(|(_, b)| *b)
            .collect();
        (!others.is_empty()).then_some((*name, *backend, others))
    });
    match alike {
        None => vec![
            NextStep::run(Command::Peak)
                .fill("adapter", "NAME")
                .why("measure an adapter's compute and bandwidth ceilings"),
            NextStep::by_hand("kcamp init DIR, then adapter: {name: NAME} in its manifest.yaml   (pin a campaign to one adapter)"),
        ],
        Some((name, backend, others)) => vec![
            NextStep::run(Command::Peak)
                .fill("adapter", "NAME")
                .fill("backend", "BACKEND")
                .why(format!(
                    "measure an adapter's compute and bandwidth ceilings; a name alone can select several: '{name}' is on {backend} and {}",
                    others.join(", ")
                )),
            NextStep::by_hand("kcamp init DIR, then adapter: {name: NAME, backend: BACKEND} in its manifest.yaml   (pin a campaign to one adapter)"),
        ],
    }
}

fn render(r: &AdapterReport) -> String {
    let f = &r.features;
    let l = &r.limits;
    let yes = |b: bool| if b { "yes" } else { "no" };
    let mut out = format!(
        "{}\n  backend {}, {}{}, vendor 0x{:04x} device 0x{:04x}{}\n  driver {}\n",
        r.name,
        r.backend,
        r.device_type,
        if r.software { " (software)" } else { "" },
        r.vendor,
        r.device,
        if r.pci_bus_id.is_empty() {
            String::new()
        } else {
            format!(", pci {}", r.pci_bus_id)
        },
        [r.driver.as_str(), r.driver_info.as_str()]
            .iter()
            .filter(|s| !s.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join(" ")
    );
    out += &format!(
        "  timestamps {} (inside passes {}), f16 {}, subgroups {}",
        yes(f.timestamp_query),
        yes(f.timestamp_query_inside_passes),
        yes(f.shader_f16),
        yes(f.subgroup)
    );
    if f.subgroup {
        out += &format!(" (size {}..{})", f.subgroup_min_size, f.subgroup_max_size);
    }
    out += &format!(", cooperative matrix {}\n", yes(f.cooperative_matrix));
    for c in &f.cooperative_matrix_configs {
        out += &format!(
            "    coop {}x{}x{} {} -> {}\n",
            c.m, c.n, c.k, c.ab_type, c.cr_type
        );
    }
    out += &format!(
        "  workgroup: {} B shared, {} invocations, size {}x{}x{}, {} per dimension\n  \
         storage binding {} MiB, buffer {} MiB\n",
        l.max_compute_workgroup_storage_size,
        l.max_compute_invocations_per_workgroup,
        l.max_compute_workgroup_size_x,
        l.max_compute_workgroup_size_y,
        l.max_compute_workgroup_size_z,
        l.max_compute_workgroups_per_dimension,
        l.max_storage_buffer_binding_size >> 20,
        l.max_buffer_size >> 20
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where one name is the name of adapters on two backends, the hint names the backend
    /// as well; distinct names need no more than the name.
    #[test]
    fn the_hint_names_the_backend_where_names_collide() {
        use kcamp_core::next::{Plain, step_line};
        let lines = |steps: Vec<NextStep>| -> Vec<String> {
            steps.iter().map(|s| step_line(s, &Plain)).collect()
        };
        let llvmpipe = "llvmpipe (LLVM 15.0.6, 256 bits)";
        let both = lines(next_steps(&[(llvmpipe, "vulkan"), (llvmpipe, "gl")]));
        assert_eq!(
            both[0],
            format!(
                "kcamp peak --adapter NAME --backend BACKEND   (measure an adapter's compute and bandwidth ceilings; a name alone can select several: '{llvmpipe}' is on vulkan and gl)"
            )
        );
        assert!(
            both[1].contains("adapter: {name: NAME, backend: BACKEND}"),
            "{both:?}"
        );
        // One name inside another's selects both as well.
        let inside = lines(next_steps(&[
            ("NVIDIA H200", "vulkan"),
            ("NVIDIA H200 (GL)", "gl"),
        ]));
        assert!(inside[0].contains("--backend BACKEND"), "{inside:?}");
        // Distinct names, or identical GPUs on one backend: the name picks.
        for listed in [
            &[("NVIDIA H200", "vulkan"), (llvmpipe, "vulkan")][..],
            &[("NVIDIA H200", "vulkan"), ("NVIDIA H200", "vulkan")][..],
        ] {
            let steps = lines(next_steps(listed));
            assert!(
                steps[0].starts_with("kcamp peak --adapter NAME   ("),
                "{steps:?}"
            );
            assert!(!steps[0].contains("--backend"), "{steps:?}");
        }
        assert!(lines(next_steps(&[]))[0].starts_with("kcamp adapters"));
    }
}
