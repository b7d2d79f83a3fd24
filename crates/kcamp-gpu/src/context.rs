//! The device a case runs on: adapter choice, device creation, error capture, read-back.

use std::sync::{Arc, Mutex};

use super::adapters::{AdapterReport, preference};
use kcamp_core::manifest::AdapterSelector;
use kcamp_core::next::{Command, NextStep};
use kcamp_core::types::{AdapterDescription, TimingMethod};
use kcamp_core::{Error, Result};

/// Features kcamp asks for whenever the adapter has them.
fn wanted_features() -> wgpu::Features {
    wgpu::Features::TIMESTAMP_QUERY
        | wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES
        | wgpu::Features::SHADER_F16
        | wgpu::Features::SUBGROUP
        | wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX
}

fn instance() -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::all().with_env();
    // No validation layers unless WGPU_VALIDATION / WGPU_DEBUG ask for them: they distort timing.
    desc.flags = wgpu::InstanceFlags::empty().with_env();
    wgpu::Instance::new(desc)
}

pub(crate) fn enumerate() -> Vec<wgpu::Adapter> {
    let found = pollster::block_on(instance().enumerate_adapters(wgpu::Backends::all()));
    // One adapter as several identical ones, for the tests of sharding (a test-support
    // seam; always 1 in a release binary).
    let copies = kcamp_core::executor::adapter_copies();
    found
        .into_iter()
        .flat_map(|a| std::iter::repeat_n(a, copies))
        .collect()
}

/// An open device on the chosen adapter. Errors wgpu would raise asynchronously (validation,
/// out of memory, device lost) are collected here instead of panicking.
pub struct GpuContext {
    /// Kept to open a second device on it for the driver's statistics.
    pub(crate) adapter: wgpu::Adapter,
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    report: AdapterReport,
    pub(crate) limits: wgpu::Limits,
    pub(crate) features: wgpu::Features,
    errors: Arc<Mutex<Vec<String>>>,
    timing: TimingMethod,
    /// The seeded-input generator's pipeline, made by the first case that needs it and
    /// kept for every later case of this device.
    pub(crate) generator: std::sync::OnceLock<crate::inputs::Generator>,
}

impl std::fmt::Debug for GpuContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuContext")
            .field("adapter", &self.report.summary())
            .finish()
    }
}

impl GpuContext {
    /// Opens the best adapter matching `sel` (name substring, case-insensitive, and/or
    /// backend); an error lists the adapters found.
    pub fn open(sel: &AdapterSelector) -> Result<GpuContext> {
        let adapters = enumerate();
        let reports: Vec<AdapterReport> =
            adapters.iter().map(AdapterReport::from_adapter).collect();
        let mut candidates = Vec::new();
        for (i, r) in reports.iter().enumerate() {
            if r.matches(sel)? {
                candidates.push(i);
            }
        }
        // Stable: identical adapters keep the order `kcamp adapters` lists them in, which
        // `index` counts.
        candidates.sort_by_key(|i| preference(&reports[*i]));
        let position = sel.index.unwrap_or(0) as usize;
        if let Some(index) = sel.index
            && !candidates.is_empty()
            && position >= candidates.len()
        {
            return Err(Error::input(format!(
                "adapter index {index} asked for, and {} adapter(s) match name {:?} and backend {:?}",
                candidates.len(),
                sel.name.as_deref().unwrap_or("*"),
                sel.backend.as_deref().unwrap_or("*"),
            )));
        }
        let Some(&chosen) = candidates.get(position) else {
            let wanted = format!(
                "no adapter matches name {:?} and backend {:?}",
                sel.name.as_deref().unwrap_or("*"),
                sel.backend.as_deref().unwrap_or("*"),
            );
            if reports.is_empty() {
                return Err(Error::Gpu(format!(
                    "{wanted}; adapters found: none (is a Vulkan/Metal/DX12/GL driver installed?)"
                )));
            }
            // Adapters exist and the selection names none of them: the selection is wrong.
            let found = reports
                .iter()
                .map(AdapterReport::summary)
                .collect::<Vec<_>>()
                .join("; ");
            return Err(
                Error::input(format!("{wanted}; adapters found: {found}.")).with_next(vec![
                    NextStep::run(Command::Adapters).why(
                        "lists them; then pick one with --adapter SUBSTR, part of a name, case-insensitive, and/or --backend vulkan|metal|dx12|gl, or set the manifest's adapter: section",
                    ),
                ]),
            );
        };
        let adapter = &adapters[chosen];
        let report = reports[chosen].clone();
        let features = adapter.features() & wanted_features();
        let limits = adapter.limits();
        let experimental = if features.contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX) {
            // SAFETY: only cooperative matrices are experimental here; kernels opt in with
            // `enable wgpu_cooperative_matrix;` and wgpu validates their use.
            unsafe { wgpu::ExperimentalFeatures::enabled() }
        } else {
            wgpu::ExperimentalFeatures::disabled()
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("kcamp"),
            required_features: features,
            required_limits: limits.clone(),
            experimental_features: experimental,
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        }))
        .map_err(|e| Error::Gpu(format!("opening {}: {e}", report.summary())))?;
        let errors = Arc::new(Mutex::new(Vec::new()));
        let sink = errors.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            lock(&sink).push(e.to_string());
        }));
        let sink = errors.clone();
        device.set_device_lost_callback(move |reason, message| {
            lock(&sink).push(format!("device lost ({reason:?}): {message}"));
        });
        Ok(GpuContext {
            adapter: adapter.clone(),
            device,
            queue,
            report,
            limits,
            timing: if features.contains(wgpu::Features::TIMESTAMP_QUERY) {
                TimingMethod::GpuTimestamps
            } else {
                TimingMethod::HostClock
            },
            features,
            errors,
            generator: std::sync::OnceLock::new(),
        })
    }

    pub fn description(&self) -> AdapterDescription {
        self.report.description()
    }

    pub fn report(&self) -> &AdapterReport {
        &self.report
    }

    /// The timing method cases and peaks use: GPU timestamps where the adapter has them.
    pub fn timing_method(&self) -> TimingMethod {
        self.timing
    }

    /// Chooses the timing method, e.g. the host clock to compare it with timestamps.
    pub fn set_timing_method(&mut self, method: TimingMethod) -> Result<()> {
        if method == TimingMethod::GpuTimestamps
            && !self.features.contains(wgpu::Features::TIMESTAMP_QUERY)
        {
            return Err(Error::Gpu(format!(
                "adapter {} has no TIMESTAMP_QUERY; only the host clock can time it",
                self.report.summary()
            )));
        }
        self.timing = method;
        Ok(())
    }

    pub fn has_f16(&self) -> bool {
        self.features.contains(wgpu::Features::SHADER_F16)
    }

    /// Drops errors left over from an earlier case.
    pub(crate) fn clear_errors(&self) {
        lock(&self.errors).clear();
    }

    /// The first error wgpu reported asynchronously since the last check, if any.
    pub(crate) fn check_errors(&self) -> Result<()> {
        let mut errors = lock(&self.errors);
        if errors.is_empty() {
            return Ok(());
        }
        let all = errors.drain(..).collect::<Vec<_>>().join("; ");
        Err(Error::Gpu(all))
    }

    /// Waits until all submitted work has finished.
    pub(crate) fn wait(&self) -> Result<()> {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| Error::Gpu(format!("waiting for the device: {e}")))?;
        self.check_errors()
    }

    /// A buffer of at least `size` bytes, padded to [`BUFFER_ALIGN`] (see [`padded_size`]).
    pub(crate) fn buffer(&self, label: &str, size: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: padded_size(size),
            usage,
            mapped_at_creation: false,
        })
    }

    /// A buffer holding `bytes`, zero-padded to [`BUFFER_ALIGN`].
    pub(crate) fn buffer_with(
        &self,
        label: &str,
        bytes: &[u8],
        usage: wgpu::BufferUsages,
    ) -> wgpu::Buffer {
        let buffer = self.buffer(
            label,
            bytes.len() as u64,
            usage | wgpu::BufferUsages::COPY_DST,
        );
        let mut padded = bytes.to_vec();
        padded.resize(padded_size(bytes.len() as u64) as usize, 0);
        self.queue.write_buffer(&buffer, 0, &padded);
        buffer
    }

    /// Copies the first `size` bytes of `buffer` (which needs COPY_SRC) back to the host.
    pub(crate) fn read_back(&self, buffer: &wgpu::Buffer, size: u64) -> Result<Vec<u8>> {
        let padded = size.max(4).next_multiple_of(4);
        let staging = self.buffer(
            "kcamp read-back",
            padded,
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        );
        let mut encoder = self.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, padded);
        self.queue.submit([encoder.finish()]);
        self.read_mappable(&staging, size)
    }

    /// Maps a MAP_READ buffer after all submitted work and copies out its first `size` bytes.
    pub(crate) fn read_mappable(&self, buffer: &wgpu::Buffer, size: u64) -> Result<Vec<u8>> {
        let (tx, rx) = std::sync::mpsc::channel();
        buffer.slice(..).map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        self.wait()?;
        match rx.try_recv() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(Error::Gpu(format!("mapping a read-back buffer: {e}"))),
            Err(_) => {
                return Err(Error::Gpu(
                    "read-back buffer was not mapped after the wait".into(),
                ));
            }
        }
        let bytes = {
            let view = buffer
                .slice(..)
                .get_mapped_range()
                .map_err(|e| Error::Gpu(format!("reading a mapped buffer: {e}")))?;
            view[..size as usize].to_vec()
        };
        buffer.unmap();
        Ok(bytes)
    }
}

/// Every buffer kcamp creates is a multiple of this many bytes (and at least this long).
pub(crate) const BUFFER_ALIGN: u64 = 16;

/// The allocated size of a buffer asked for with `size` bytes: rounded up to [`BUFFER_ALIGN`],
/// so a kernel may read and write `vec4<f32>` (or `vec4<u32>`, `vec2<f16>` pairs, ...) views of
/// any binding for any shape; the pad lies past the data, holds zeros in inputs and is never
/// compared in outputs. With 4-byte padding a vec4 view of an odd-length array loses its last
/// element (NVIDIA's robust access drops a 16-byte store that is partly out of bounds).
pub(crate) fn padded_size(size: u64) -> u64 {
    size.max(BUFFER_ALIGN).next_multiple_of(BUFFER_ALIGN)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_padded_to_16_bytes() {
        assert_eq!(padded_size(0), 16);
        assert_eq!(padded_size(4), 16);
        assert_eq!(padded_size(16), 16);
        assert_eq!(padded_size(17), 32);
        // 191 x 143 f32 = 109,252 bytes: the vec4 view's last element must be in bounds.
        assert_eq!(padded_size(191 * 143 * 4) % 16, 0);
        assert!(padded_size(191 * 143 * 4) >= 191 * 143 * 4);
        assert_eq!(padded_size(1 << 30), 1 << 30);
    }
}
