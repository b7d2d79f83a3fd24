#!/usr/bin/env python3
"""Probes of what the f16 GEMM's inner loop costs on the tensor cores, each timed by
`kcamp peak --coop-probe FILE` in place of the bundled multiply-add chain: the same
bindings, 256 invocations (8 subgroups of 32), and 8 multiply-adds of 16x16x16 per subgroup
and iteration, so kcamp's FLOP count holds; only what else each iteration does differs.
The operands come from workgroup arrays laid out as version 34's (the incumbent of
campaigns/h200-hgemm-f16: 128x64 A tile with rows of 72 halves, 64x128 B tile with rows of
136 halves, both as vec2<f16>), loaded the way its k-steps load them, at a k offset that
changes every iteration so that no load can be hoisted out of the loop.

    python3 gen_probes.py DIR      writes DIR/<name>.wgsl for every probe below
"""
import os
import sys

# What happens once per k-tile (every 4 iterations, 4 k-steps of 16), besides the k-steps.
NOTHING, BARRIER, STAGE = 0, 1, 2
PROBES = {
    # name: (A fragments, B fragments, passes per iteration, per k-tile, row pads)
    # 34's k-step: 4 A + 2 B loads for 8 multiply-adds.
    "l6": (4, 2, 1, NOTHING, True),
    # 34's k-step with one workgroup barrier per k-tile.
    "l6-barrier": (4, 2, 1, BARRIER, True),
    # 34's k-steps and its staging of the next k-tile, without the global loads: a barrier,
    # the 32 vec2<f16> stores per invocation at 34's addresses (values from registers), and
    # a second barrier.
    "l6-stage": (4, 2, 1, STAGE, True),
    # 4x4 fragments per subgroup (4 A + 4 B loads for 16): 4 loads for 8 multiply-adds.
    "l4": (2, 2, 1, NOTHING, True),
    # 2x2 fragments per subgroup: 8 loads for 8 multiply-adds.
    "l8": (2, 2, 2, NOTHING, True),
    # 34's k-step without the 8-half row padding (version 08 lost 33% to it).
    "l6-nopad": (4, 2, 1, NOTHING, False),
}
# k-tile 32, double buffered (two buffers of 128x32 A and 32x128 B halves, rows padded by 8:
# 37 KiB of the adapter's 48): every 2 iterations the invocations store the next k-tile
# (16 vec2<f16> each) into the buffer not being read, then one barrier. Without global loads:
# the ceiling of the one double-buffered staging that fits in 48 KiB.
DBUF32 = 3
BARRIER2 = 4
PROBES["l6-barrier2"] = (4, 2, 1, BARRIER2, True)
PROBES["l6-dbuf32"] = (4, 2, 1, DBUF32, True)
PER_TILE = {DBUF32: ", k-tile 32 double buffered: every 2 iterations 16 stores of vec2<f16> per invocation into the other buffer and a barrier",
            BARRIER2: ", a workgroup barrier every 2 iterations",NOTHING: "", BARRIER: ", a workgroup barrier every 4 iterations",
            STAGE: ", every 4 iterations a barrier, 32 stores of vec2<f16> per invocation and a barrier"}


def staging(sa, sb):
    """34's stores of one k-tile (A: 128 rows of 64 halves, 8 invocations a row; B: 64 rows
    of 128 halves, 16 a row; 4 vec2<f16> per invocation and row), between two barriers."""
    lines = ["        if ((it & 3u) == 3u) {\n", "            workgroupBarrier();\n",
             "            let t = f16(f32(it & 7u) * 0.01);\n"]
    for j in range(4):
        lines.append(f"            let ra{j} = ((lid + {256 * j}u) / 8u) * {sa}u + (lid % 8u) * 4u;\n")
        for e in range(4):
            lines.append(f"            As[ra{j} + {e}u] = vec2<f16>(t, t);\n")
    for j in range(4):
        lines.append(f"            let rb{j} = ((lid + {256 * j}u) / 16u) * {sb}u + (lid % 16u) * 4u;\n")
        for e in range(4):
            lines.append(f"            Bs[rb{j} + {e}u] = vec2<f16>(t, -t);\n")
    lines += ["            workgroupBarrier();\n", "        }\n"]
    return "".join(lines)


def dbuf32_probe(name):
    """34's k-step loads from a double-buffered k-tile of 32 (A rows of 40 halves, B rows of
    136), the next tile stored into the other buffer every 2 iterations, one barrier."""
    sa, sb, abuf, bbuf = 20, 68, 128 * 20, 32 * 68
    out = [f"""enable f16;
enable wgpu_cooperative_matrix;

// Probe '{name}' (scripts/h200/probes/gen_probes.py): per subgroup and iteration 6
// cooperative loads from workgroup memory and 8 multiply-adds of 16x16x16 (f16 inputs, f32
// sums){PER_TILE[DBUF32]}. Timed by `kcamp peak --coop-probe THIS`.

struct Params {{
    iterations: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}}

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<uniform> params: Params;

var<workgroup> As: array<vec2<f16>, {2 * abuf}>;
var<workgroup> Bs: array<vec2<f16>, {2 * bbuf}>;

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {{
    for (var i = lid; i < {2 * abuf}u; i = i + 256u) {{
        let v = f16(f32(i % 7u) * 0.01);
        As[i] = vec2<f16>(v, v);
    }}
    for (var i = lid; i < {2 * bbuf}u; i = i + 256u) {{
        let v = f16(f32(i % 7u) * 0.01);
        Bs[i] = vec2<f16>(v, -v);
    }}
    workgroupBarrier();
    let warp = lid / 32u;
    let wrow = (warp / 4u) * 64u;
    let wcol = (warp % 4u) * 32u;
"""]
    for c in range(8):
        out.append(f"    var c{c} = coop_mat16x16<f32, C>();\n")
    out.append("    for (var it = 0u; it < params.iterations; it = it + 1u) {\n")
    out.append("        let kk = (it & 1u) * 16u;\n")
    out.append(f"        let ab = ((it >> 1u) & 1u) * {abuf}u;\n")
    out.append(f"        let bb = ((it >> 1u) & 1u) * {bbuf}u;\n")
    for r in range(4):
        out.append(f"        let a{r} = coopLoadT<coop_mat16x16<f16, A>>(&As[ab + (wrow + {16 * r}u) * {sa}u + kk / 2u], {sa}u);\n")
    for c in range(2):
        out.append(f"        let b{c} = coopLoadT<coop_mat16x16<f16, B>>(&Bs[bb + kk * {sb}u + (wcol + {16 * c}u) / 2u], {sb}u);\n")
    acc = 0
    for r in range(4):
        for c in range(2):
            out.append(f"        c{acc} = coopMultiplyAdd(a{r}, b{c}, c{acc});\n")
            acc += 1
    out.append("        if ((it & 1u) == 1u) {\n")
    out.append("            let t = f16(f32(it & 7u) * 0.01);\n")
    out.append(f"            let na = {abuf}u - ab;\n            let nb = {bbuf}u - bb;\n")
    for j in range(2):
        out.append(f"            let ra{j} = na + ((lid + {256 * j}u) / 4u) * {sa}u + (lid % 4u) * 4u;\n")
        for e in range(4):
            out.append(f"            As[ra{j} + {e}u] = vec2<f16>(t, t);\n")
    for j in range(2):
        out.append(f"            let rb{j} = nb + ((lid + {256 * j}u) / 16u) * {sb}u + (lid % 16u) * 4u;\n")
        for e in range(4):
            out.append(f"            Bs[rb{j} + {e}u] = vec2<f16>(t, -t);\n")
    out.append("            workgroupBarrier();\n        }\n    }\n")
    out.append("""    // 64 slots of 8 subgroups x 8 accumulators x 256 floats (4 MiB), as the bundled chain.
    let slot = ((wg.y * groups.x + wg.x) % 64u) * 16384u + (lid / 32u) * 2048u;
""")
    for c in range(8):
        out.append(f"    coopStoreT(c{c}, &out[slot + {256 * c}u], 16u);\n")
    out.append("}\n")
    return "".join(out)


def probe(name, a_frags, b_frags, passes, per_tile, pad):
    if per_tile == DBUF32:
        return dbuf32_probe(name)
    sa, sb = (36, 68) if pad else (32, 64)
    out = [f"""enable f16;
enable wgpu_cooperative_matrix;

// Probe '{name}' (scripts/h200/probes/gen_probes.py): per subgroup and iteration
// {passes * (a_frags + b_frags)} cooperative loads from workgroup memory and 8 multiply-adds
// of 16x16x16 (f16 inputs, f32 sums){PER_TILE[per_tile]};
// rows of {2 * sa} halves (A) and {2 * sb} halves (B). Timed by `kcamp peak --coop-probe THIS`.

struct Params {{
    iterations: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}}

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<uniform> params: Params;

var<workgroup> As: array<vec2<f16>, 4608>;
var<workgroup> Bs: array<vec2<f16>, 4608>;

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {{
    for (var i = lid; i < 4608u; i = i + 256u) {{
        let v = f16(f32(i % 7u) * 0.01);
        As[i] = vec2<f16>(v, v);
        Bs[i] = vec2<f16>(v, -v);
    }}
    workgroupBarrier();
    let warp = lid / 32u;
    let wrow = (warp / 4u) * 64u;
    let wcol = (warp % 4u) * 32u;
"""]
    for c in range(8):
        out.append(f"    var c{c} = coop_mat16x16<f32, C>();\n")
    out.append("    for (var it = 0u; it < params.iterations; it = it + 1u) {\n")
    acc = 0
    for p in range(passes):
        # The k-step of this pass: one of the tile's four, another every iteration.
        out.append(f"        let kk{p} = ((it * {passes}u + {p}u) & 3u) * 16u;\n")
        for r in range(a_frags):
            out.append(f"        let a{p}_{r} = coopLoadT<coop_mat16x16<f16, A>>(&As[(wrow + {16 * r}u) * {sa}u + kk{p} / 2u], {sa}u);\n")
        for c in range(b_frags):
            out.append(f"        let b{p}_{c} = coopLoadT<coop_mat16x16<f16, B>>(&Bs[kk{p} * {sb}u + (wcol + {16 * c}u) / 2u], {sb}u);\n")
        products = [(r, c) for r in range(a_frags) for c in range(b_frags)]
        per_pass = 8 // passes
        for i in range(per_pass):
            r, c = products[i % len(products)]
            out.append(f"        c{acc} = coopMultiplyAdd(a{p}_{r}, b{p}_{c}, c{acc});\n")
            acc += 1
    if per_tile == BARRIER:
        out.append("        if ((it & 3u) == 3u) {\n            workgroupBarrier();\n        }\n")
    elif per_tile == BARRIER2:
        out.append("        if ((it & 1u) == 1u) {\n            workgroupBarrier();\n        }\n")
    elif per_tile == STAGE:
        out.append(staging(sa, sb))
    out.append("    }\n")
    out.append("""    // 64 slots of 8 subgroups x 8 accumulators x 256 floats (4 MiB), as the bundled chain.
    let slot = ((wg.y * groups.x + wg.x) % 64u) * 16384u + (lid / 32u) * 2048u;
""")
    for c in range(8):
        out.append(f"    coopStoreT(c{c}, &out[slot + {256 * c}u], 16u);\n")
    out.append("}\n")
    return "".join(out)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen_probes.py DIR")
    target = sys.argv[1]
    os.makedirs(target, exist_ok=True)
    for name, spec in PROBES.items():
        with open(os.path.join(target, f"{name}.wgsl"), "w") as f:
            f.write(probe(name, *spec))


if __name__ == "__main__":
    main()
