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

# What happens once per k-tile besides the k-steps.
NOTHING, BARRIER, STAGE, DBUF32, BARRIER2 = range(5)
PER_TILE = {
    NOTHING: "",
    BARRIER: ", a workgroup barrier every 4 iterations",
    BARRIER2: ", a workgroup barrier every 2 iterations",
    STAGE: ", every 4 iterations a barrier, 32 stores of vec2<f16> per invocation and a barrier",
    DBUF32: ", k-tile 32 double buffered: every 2 iterations 16 stores of vec2<f16> per invocation into the other buffer and a barrier",
}
PROBES = {
    # name: (A fragments, B fragments, passes per iteration, per k-tile, row pads)
    # 34's k-step: 4 A + 2 B loads for 8 multiply-adds.
    "l6": (4, 2, 1, NOTHING, True),
    # 34's k-step with one workgroup barrier per k-tile of 4 k-steps.
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
    # One barrier every 2 k-steps.
    "l6-barrier2": (4, 2, 1, BARRIER2, True),
    # k-tile 32, double buffered (two buffers of 128x32 A and 32x128 B halves, rows padded
    # by 8: 37 KiB of the adapter's 48): every 2 iterations the invocations store the next
    # k-tile (16 vec2<f16> each) into the buffer not being read, then one barrier. Without
    # global loads: the ceiling of the one double-buffered staging that fits in 48 KiB.
    "l6-dbuf32": (4, 2, 1, DBUF32, True),
}


def chain_bindings():
    """The bundled chain's parameters and bindings, which `kcamp peak` binds for a probe too."""
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "..", "..", "shaders", "peak_coop_f16.wgsl")) as f:
        chain = f.read()
    start = chain.index("struct Params {")
    end = chain.index("var<uniform> params: Params;") + len("var<uniform> params: Params;")
    return chain[start:end]


def prologue(comment, a_len, b_len):
    """The probe up to its loop's first statement: bindings, workgroup arrays of `a_len` and
    `b_len` vec2<f16> (filled once), each subgroup's place in 34's 2x4 layout, the
    accumulators."""
    fill = (f"""    for (var i = lid; i < {a_len}u; i = i + 256u) {{
        let v = f16(f32(i % 7u) * 0.01);
        As[i] = vec2<f16>(v, v);
        Bs[i] = vec2<f16>(v, -v);
    }}
""" if a_len == b_len else f"""    for (var i = lid; i < {a_len}u; i = i + 256u) {{
        let v = f16(f32(i % 7u) * 0.01);
        As[i] = vec2<f16>(v, v);
    }}
    for (var i = lid; i < {b_len}u; i = i + 256u) {{
        let v = f16(f32(i % 7u) * 0.01);
        Bs[i] = vec2<f16>(v, -v);
    }}
""")
    out = [f"""enable f16;
enable wgpu_cooperative_matrix;

{comment}

{chain_bindings()}

var<workgroup> As: array<vec2<f16>, {a_len}>;
var<workgroup> Bs: array<vec2<f16>, {b_len}>;

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {{
{fill}    workgroupBarrier();
    let warp = lid / 32u;
    let wrow = (warp / 4u) * 64u;
    let wcol = (warp % 4u) * 32u;
"""]
    out += [f"    var c{c} = coop_mat16x16<f32, C>();\n" for c in range(8)]
    out.append("    for (var it = 0u; it < params.iterations; it = it + 1u) {\n")
    return out


def epilogue():
    """After the loop: every accumulator stored, so that no chain can be removed."""
    out = ["""    // 64 slots of 8 subgroups x 8 accumulators x 256 floats (4 MiB), as the bundled chain.
    let slot = ((wg.y * groups.x + wg.x) % 64u) * 16384u + (lid / 32u) * 2048u;
"""]
    out += [f"    coopStoreT(c{c}, &out[slot + {256 * c}u], 16u);\n" for c in range(8)]
    out.append("}\n")
    return out


def stores(rows, per_row, base, sa, sb):
    """One k-tile's stores: A rows of `per_row[0]` invocations and B rows of `per_row[1]`
    (4 vec2<f16> each), `rows` = (A, B) groups of 256 invocations, from offsets `base`."""
    out = []
    for side, array, value, groups, n, stride, offset in (
        ("a", "As", "t, t", rows[0], per_row[0], sa, base[0]),
        ("b", "Bs", "t, -t", rows[1], per_row[1], sb, base[1]),
    ):
        for j in range(groups):
            out.append(f"            let r{side}{j} = {offset}((lid + {256 * j}u) / {n}u) * {stride}u + (lid % {n}u) * 4u;\n")
            out += [f"            {array}[r{side}{j} + {e}u] = vec2<f16>({value});\n" for e in range(4)]
    return out


def dbuf32_probe(name):
    """34's k-step loads from a double-buffered k-tile of 32 (A rows of 40 halves, B rows of
    136), the next tile stored into the other buffer every 2 iterations, one barrier."""
    sa, sb, abuf, bbuf = 20, 68, 128 * 20, 32 * 68
    comment = f"""// Probe '{name}' (scripts/h200/probes/gen_probes.py): per subgroup and iteration 6
// cooperative loads from workgroup memory and 8 multiply-adds of 16x16x16 (f16 inputs, f32
// sums){PER_TILE[DBUF32]}. Timed by `kcamp peak --coop-probe THIS`."""
    out = prologue(comment, 2 * abuf, 2 * bbuf)
    out.append("        let kk = (it & 1u) * 16u;\n")
    out.append(f"        let ab = ((it >> 1u) & 1u) * {abuf}u;\n")
    out.append(f"        let bb = ((it >> 1u) & 1u) * {bbuf}u;\n")
    out += [f"        let a{r} = coopLoadT<coop_mat16x16<f16, A>>(&As[ab + (wrow + {16 * r}u) * {sa}u + kk / 2u], {sa}u);\n" for r in range(4)]
    out += [f"        let b{c} = coopLoadT<coop_mat16x16<f16, B>>(&Bs[bb + kk * {sb}u + (wcol + {16 * c}u) / 2u], {sb}u);\n" for c in range(2)]
    out += [f"        c{2 * r + c} = coopMultiplyAdd(a{r}, b{c}, c{2 * r + c});\n" for r in range(4) for c in range(2)]
    out.append("        if ((it & 1u) == 1u) {\n")
    out.append("            let t = f16(f32(it & 7u) * 0.01);\n")
    out.append(f"            let na = {abuf}u - ab;\n            let nb = {bbuf}u - bb;\n")
    out += stores((2, 2), (4, 16), ("na + ", "nb + "), sa, sb)
    out.append("            workgroupBarrier();\n        }\n    }\n")
    return "".join(out + epilogue())


def probe(name, a_frags, b_frags, passes, per_tile, pad):
    if per_tile == DBUF32:
        return dbuf32_probe(name)
    sa, sb = (36, 68) if pad else (32, 64)
    comment = f"""// Probe '{name}' (scripts/h200/probes/gen_probes.py): per subgroup and iteration
// {passes * (a_frags + b_frags)} cooperative loads from workgroup memory and 8 multiply-adds
// of 16x16x16 (f16 inputs, f32 sums){PER_TILE[per_tile]};
// rows of {2 * sa} halves (A) and {2 * sb} halves (B). Timed by `kcamp peak --coop-probe THIS`."""
    out = prologue(comment, 4608, 4608)
    acc = 0
    for p in range(passes):
        # The k-step of this pass: one of the tile's four, another every iteration.
        out.append(f"        let kk{p} = ((it * {passes}u + {p}u) & 3u) * 16u;\n")
        out += [f"        let a{p}_{r} = coopLoadT<coop_mat16x16<f16, A>>(&As[(wrow + {16 * r}u) * {sa}u + kk{p} / 2u], {sa}u);\n" for r in range(a_frags)]
        out += [f"        let b{p}_{c} = coopLoadT<coop_mat16x16<f16, B>>(&Bs[kk{p} * {sb}u + (wcol + {16 * c}u) / 2u], {sb}u);\n" for c in range(b_frags)]
        products = [(r, c) for r in range(a_frags) for c in range(b_frags)]
        for i in range(8 // passes):
            r, c = products[i % len(products)]
            out.append(f"        c{acc} = coopMultiplyAdd(a{p}_{r}, b{p}_{c}, c{acc});\n")
            acc += 1
    if per_tile in (BARRIER, BARRIER2):
        mask = 3 if per_tile == BARRIER else 1
        out.append(f"        if ((it & {mask}u) == {mask}u) {{\n            workgroupBarrier();\n        }}\n")
    elif per_tile == STAGE:
        # 34's stores of one k-tile (A: 128 rows of 64 halves, 8 invocations a row; B: 64
        # rows of 128 halves, 16 a row), between two barriers.
        out += ["        if ((it & 3u) == 3u) {\n", "            workgroupBarrier();\n",
                "            let t = f16(f32(it & 7u) * 0.01);\n"]
        out += stores((4, 4), (8, 16), ("", ""), sa, sb)
        out += ["            workgroupBarrier();\n", "        }\n"]
    out.append("    }\n")
    return "".join(out + epilogue())


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
