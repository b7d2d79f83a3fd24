//! `kcamp adapters`.

use super::{AdapterArgs, CmdOutput, Ctx};
use kcamp_core::manifest::AdapterSelector;
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
    let next = if shown.is_empty() {
        vec!["kcamp adapters   (every adapter wgpu sees; scripts/ensure-driver.sh installs Mesa's software driver where there is none)".to_owned()]
    } else {
        vec![
            "kcamp peak --adapter NAME   (measure an adapter's compute and bandwidth ceilings)"
                .to_owned(),
            "kcamp init DIR, then adapter: {name: NAME} in its manifest.yaml   (pin a campaign to one adapter)".to_owned(),
        ]
    };
    Ok(CmdOutput::ok(json, human).with_next(next))
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
