//! The baseline kernel each op ships with, copied into `kernel/` by `kcamp init`.

use std::collections::BTreeMap;

use crate::manifest::{Dtype, KernelSpec, OpName, WorkgroupExprs};

pub struct BaselineKernel {
    pub spec: KernelSpec,
    pub source: &'static str,
}

pub fn baseline_kernel(op: OpName, dtype: Dtype) -> BaselineKernel {
    let entry = |e: &str| BTreeMap::from([("forward".to_owned(), e.to_owned())]);
    match (op, dtype) {
        (OpName::Gemm, Dtype::F32) => BaselineKernel {
            spec: KernelSpec {
                file: "gemm.wgsl".into(),
                entry_points: entry("main"),
                workgroups: WorkgroupExprs {
                    x: "ceil(N/16)".into(),
                    y: "ceil(M/16)".into(),
                    z: "B".into(),
                },
                bindings: BTreeMap::new(),
                trusted: false,
            },
            source: include_str!("../../shaders/gemm_naive.wgsl"),
        },
        (OpName::Gemm, Dtype::F16) => BaselineKernel {
            spec: KernelSpec {
                file: "gemm_f16.wgsl".into(),
                entry_points: entry("main"),
                workgroups: WorkgroupExprs {
                    x: "ceil(N/16)".into(),
                    y: "ceil(M/16)".into(),
                    z: "B".into(),
                },
                bindings: BTreeMap::new(),
                trusted: false,
            },
            source: include_str!("../../shaders/gemm_naive_f16.wgsl"),
        },
        (OpName::Axpy, _) => BaselineKernel {
            spec: KernelSpec {
                file: "axpy.wgsl".into(),
                entry_points: entry("main"),
                workgroups: WorkgroupExprs {
                    x: "min(ceil(N/256), 65535)".into(),
                    y: "ceil(ceil(N/256)/65535)".into(),
                    z: "1".into(),
                },
                bindings: BTreeMap::new(),
                trusted: false,
            },
            source: include_str!("../../shaders/axpy.wgsl"),
        },
    }
}
