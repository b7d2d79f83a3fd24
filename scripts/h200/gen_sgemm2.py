#!/usr/bin/env python3
"""Second generator of the sgemm-f32 lineage (versions 16 on), kcamp kernel ABI.

Needs kcamp's 16-byte buffer padding: every binding is declared `array<vec4<f32>>`, so the
last, partial vec4 of an operand must lie inside the binding.

What it adds to gen_sgemm.py (whose version 13 is the starting point):
  vecg   global loads and C stores as vec4 where the operand's leading dimension is a multiple of
         4 (a uniform branch per operand per k-tile; otherwise scalar loads through the vec4 view)
  cse    shared memory as [stage][k][m/4] arrays indexed by loop-invariant lets, so naga's
         bounds clamps are the same expression at every access (one clamp, not one per LDS)
  warp   warp-tile thread mapping: warps of WM x WN, lanes LY x LX (else the block-wide 13 layout)
  swz    grouped block order (GM block rows per group) for L2 reuse
  ahead  the next k step's fragments read before this step's FMAs (as 13)
  dbuf   double-buffered shared memory with a register prefetch (else single buffered)
  amap   'row': 4 consecutive lanes read one row's 16 k-values (13's); 'col': consecutive lanes
         read consecutive rows, so the transposing stores to shared memory hit 32 banks
  split  two copies of the k-loop behind one uniform branch (all vec4 loads / all scalar loads)
         instead of a branch per operand inside one loop: each loop keeps only its own addresses live
  scal_dbuf, scal_ahead  with split: dbuf and ahead for the scalar loop alone (default: as the
         vec4 loop), so the unaligned path can trade a barrier for fewer live registers
  amap   'half' (version 45 on): a warp reads 16 rows x 2 consecutive k-vec4s (32 contiguous
         bytes per row, whole sectors as 'row'), so with pad the transposing stores hit 32 banks
  vec_only  only the vec4 loads and stores, no scalar path: the kernel assumes M, N and K are
         multiples of 4 (kcamp runs it only where they are: `kernel.aligned` with `to: 4`)
  aligned  a second configuration (a dict) generated as the entry points forward_aligned,
         backward_da_aligned, backward_db_aligned, with vec_only unless it says vec_only: false, beside this one's general entry
         points in the same module (its own workgroup arrays; the bindings shared), and named in
         kernel.yaml's `aligned:` so kcamp runs them on shapes aligned to 4: each path compiles
         to its own pipeline with its own registers
  pad    vec4s of padding per shared-memory row (row stride 4 * (BM/4 + pad) floats): with
         pad 1 the stride is 4 mod 32 banks, and 'half''s two k-vec4s of a row land 16 banks apart

Three entry points (forward, backward_da, backward_db) share one body; the transposes are
compile-time constants. Batches through workgroup_id.z; any shape (edge tiles guarded).
"""
import json
import sys

DEFAULTS = dict(BM=128, BN=128, BK=16, TM=8, TN=8, warp=None, vecg=True, cse=True, swz=0,
                ahead=True, dbuf=True, amap="row", split=False, scal_dbuf=None, scal_ahead=None,
                pad=0, vec_only=False, aligned=None)


def gen(cfg):
    p = dict(DEFAULTS)
    p.update(cfg)
    BM, BN, BK, TM, TN = p["BM"], p["BN"], p["BK"], p["TM"], p["TN"]
    vecg, cse, swz, ahead, dbuf, amap = p["vecg"], p["cse"], p["swz"], p["ahead"], p["dbuf"], p["amap"]
    split = p["split"]
    assert vecg or not split
    assert TM % 4 == 0 and TN % 4 == 0 and BK % 4 == 0
    if p["warp"]:
        WM, WN = p["warp"]
        LY, LX = WM // TM, WN // TN
        assert LY * LX == 32 and BM % WM == 0 and BN % WN == 0
        WYN, WXN = BM // WM, BN // WN
        T = WYN * WXN * 32
    else:
        LY, LX = BM // TM, BN // TN  # one "warp tile": the whole block (13's layout)
        T = LY * LX
        WM, WN, WYN, WXN = BM, BN, 1, 1
    assert T <= 1024
    scal_dbuf = dbuf if p["scal_dbuf"] is None else p["scal_dbuf"]
    scal_ahead = ahead if p["scal_ahead"] is None else p["scal_ahead"]
    assert split or (scal_dbuf == dbuf and scal_ahead == ahead)
    NS = 2 if (dbuf or scal_dbuf) else 1
    GA = BM * BK // 4 // T
    GB = BN * BK // 4 // T
    assert GA >= 1 and GB >= 1 and (BM * BK // 4) % T == 0 and (BN * BK // 4) % T == 0
    L = []
    w = L.append
    w(f"// kcamp GEMM f32 (sgemm-f32 lineage, gen_sgemm2.py {json.dumps(cfg, sort_keys=True)})")
    w(f"// {BM}x{BN} block tile, k-tile {BK}, {TM}x{TN} outputs per invocation, {T} invocations;")
    if p["warp"]:
        w(f"// warp tiles {WM}x{WN} ({WYN}x{WXN} warps), lanes {LY}x{LX}, each lane {TM // 4}x{TN // 4} chunks of 4x4;")
    else:
        w(f"// invocations {LY}x{LX} over the block, each {TM // 4}x{TN // 4} chunks of 4x4 strided by the block;")
    w(f"// global loads {'vec4 where the leading dimension is a multiple of 4, else scalar' if vecg else 'scalar'}; "
      f"{'double buffered with a register prefetch' if dbuf else 'single buffered'}"
      f"{', next fragments read ahead' if ahead else ''}{f', grouped block order ({swz} rows)' if swz else ''}.")
    if split and (scal_dbuf, scal_ahead) != (dbuf, ahead):
        w(f"// the scalar (unaligned) k-loop: {'double buffered with a register prefetch' if scal_dbuf else 'single buffered'}"
          f"{', next fragments read ahead' if scal_ahead else ', no read-ahead'}.")
    w("// Needs buffers padded to 16 bytes (kcamp pads every binding), the bindings being vec4 arrays.")
    w(f"// Entry points forward, backward_da, backward_db. Workgroups: x = ceil(N/{BN}), y = ceil(M/{BM}), z = B.")
    w("""
struct Params {
    m: u32,
    n: u32,
    k: u32,
    batch: u32,
    trans_a: u32,
    trans_b: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> c: array<vec4<f32>>;
@group(0) @binding(3) var<uniform> params: Params;
""")
    pad = p["pad"]
    assert cse or not pad
    if cse:
        w(f"var<workgroup> As: array<array<array<vec4<f32>, {BM // 4 + pad}>, {BK}>, {NS}>;")
        w(f"var<workgroup> Bs: array<array<array<vec4<f32>, {BN // 4 + pad}>, {BK}>, {NS}>;")
    else:
        w(f"var<workgroup> As: array<vec4<f32>, {NS * BK * BM // 4}>;")
        w(f"var<workgroup> Bs: array<vec4<f32>, {NS * BK * BN // 4}>;")
    w("")

    def sref(arr, stage, k, col4, width):
        """reference to the vec4 at [stage][k][col4] (strings)"""
        if cse:
            return f"{arr}[{stage}][{k}][{col4}]"
        return f"{arr}[({stage}) * {BK * width // 4}u + ({k}) * {width // 4}u + {col4}]"

    for name, ta, tb in (("forward", 0, 0), ("backward_da", 0, 1), ("backward_db", 1, 0)):
        w(f"@compute @workgroup_size({T}, 1, 1)")
        w(f"fn {name}(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, "
          f"@builtin(local_invocation_index) tid: u32) {{")
        w("    let M = params.m;\n    let N = params.n;\n    let K = params.k;")
        if swz:
            w("    let pid = wg.y * nwg.x + wg.x;")
            w(f"    let gw = {swz}u * nwg.x;")
            w(f"    let first = (pid / gw) * {swz}u;")
            w(f"    let gsz = min(nwg.y - first, {swz}u);")
            w("    let by = first + (pid % gw) % gsz;\n    let bx = (pid % gw) / gsz;")
        else:
            w("    let by = wg.y;\n    let bx = wg.x;")
        w(f"    let row0 = by * {BM}u;\n    let col0 = bx * {BN}u;")
        # operand layouts: leading dimension (stride of the stored rows)
        lda = "M" if ta else "K"
        ldb = "K" if tb else "N"
        w(f"    let a_vec = ({lda} & 3u) == 0u;\n    let b_vec = ({ldb} & 3u) == 0u;\n    let c_vec = (N & 3u) == 0u;")
        w("    let a_base = wg.z * M * K;\n    let b_base = wg.z * K * N;\n    let c_base = wg.z * M * N;")
        w("    let a_last = arrayLength(&a) - 1u;\n    let b_last = arrayLength(&b) - 1u;")
        # thread mapping -> vec4 chunk indices of A rows and B columns
        if p["warp"]:
            w("    let wid = tid / 32u;\n    let lane = tid % 32u;")
            w(f"    let wy = wid / {WXN}u;\n    let wx = wid % {WXN}u;")
            w(f"    let ly = lane / {LX}u;\n    let lx = lane % {LX}u;")
            for ci in range(TM // 4):
                w(f"    let a4_{ci} = wy * {WM // 4}u + {ci * LY}u + ly;")
            for cj in range(TN // 4):
                w(f"    let b4_{cj} = wx * {WN // 4}u + {cj * LX}u + lx;")
        else:
            w(f"    let lx = tid % {LX}u;\n    let ly = tid / {LX}u;")
            for ci in range(TM // 4):
                w(f"    let a4_{ci} = {ci * LY}u + ly;")
            for cj in range(TN // 4):
                w(f"    let b4_{cj} = {cj * LX}u + lx;")

        # load groups. op: (name, rows-extent var, tile rows R (m or n), transposed-store?)
        ops = []
        # A: tile BM (m) x BK; contiguous along k when ta == 0 (transposed store), along m when ta == 1
        ops.append(dict(x="a", arr="As", reg="ra", G=GA, R=BM, tr=(ta == 0), ext="M", vec="a_vec",
                        base="a_base", last="a_last", ld=lda, off="row0"))
        ops.append(dict(x="b", arr="Bs", reg="rb", G=GB, R=BN, tr=(tb == 1), ext="N", vec="b_vec",
                        base="b_base", last="b_last", ld=ldb, off="col0"))
        for o in ops:
            x, R = o["x"], o["R"]
            for g in range(o["G"]):
                gi = f"(tid + {g * T}u)"
                if o["tr"]:  # stored rows = tile rows (m or n), contiguous along k
                    if amap == "half":
                        # warp wv: rows 16 * (wv / (KV/2)) + lane % 16, k-vec4 2 * (wv % (KV/2)) + lane / 16
                        KV = BK // 4
                        assert KV % 2 == 0 and R % 16 == 0 and (R // 16) * (KV // 2) * 32 == R * KV
                        w(f"    let l{x}_w{g} = {gi} / 32u;\n    let l{x}_l{g} = {gi} % 32u;")
                        w(f"    let l{x}_r{g} = (l{x}_w{g} / {KV // 2}u) * 16u + l{x}_l{g} % 16u;")
                        w(f"    let l{x}_k{g} = ((l{x}_w{g} % {KV // 2}u) * 2u + l{x}_l{g} / 16u) * 4u;")
                    elif amap == "col":
                        w(f"    let l{x}_r{g} = {gi} % {R}u;\n    let l{x}_k{g} = ({gi} / {R}u) * 4u;")
                    else:
                        w(f"    let l{x}_r{g} = {gi} / {BK // 4}u;\n    let l{x}_k{g} = ({gi} % {BK // 4}u) * 4u;")
                    # shared-memory destinations (loop invariant)
                    w(f"    let l{x}_r4_{g} = l{x}_r{g} >> 2u;\n    let l{x}_rc{g} = l{x}_r{g} & 3u;")
                    for e in range(4):
                        w(f"    let l{x}_kk{g}_{e} = l{x}_k{g} + {e}u;")
                else:  # stored rows = k, contiguous along the tile's m or n
                    w(f"    let l{x}_k{g} = {gi} / {R // 4}u;\n    let l{x}_c4_{g} = {gi} % {R // 4}u;")
                w(f"    var {o['reg']}{g}: vec4<f32>;")
        for i in range(TM):
            for j in range(TN // 4):
                w(f"    var acc{i}_{j} = vec4<f32>(0.0);")
        w(f"    let ntiles = (K + {BK - 1}u) / {BK}u;")

        def load(indent, k0, mode=None):
            s = " " * indent
            out = []
            for o in ops:
                x, reg, base, last, ld, off, ext, arr = (o[k] for k in ("x", "reg", "base", "last", "ld", "off", "ext", "x"))
                vecb, scal = [], []
                for g in range(o["G"]):
                    if o["tr"]:
                        r, kk = f"{off} + l{x}_r{g}", f"{k0} + l{x}_k{g}"
                        # element (r, kk + e) at base + r * ld + kk + e; ld = K (a multiple of 4 on the vec path)
                        vecb.append(f"{s}    {reg}{g} = select(vec4<f32>(0.0), {arr}[min(({base} + ({r}) * {ld} + {kk}) >> 2u, {last})], "
                                    f"({r} < {ext}) & ({kk} < K));")
                        for e in range(4):
                            idx = f"{base} + ({r}) * {ld} + {kk} + {e}u"
                            scal.append(f"{s}    {reg}{g}.{'xyzw'[e]} = select(0.0, {arr}[min(({idx}) >> 2u, {last})][({idx}) & 3u], "
                                        f"({r} < {ext}) & ({kk} + {e}u < K));")
                    else:
                        kk, cc = f"{k0} + l{x}_k{g}", f"{off} + l{x}_c4_{g} * 4u"
                        vecb.append(f"{s}    {reg}{g} = select(vec4<f32>(0.0), {arr}[min(({base} + ({kk}) * {ld} + {cc}) >> 2u, {last})], "
                                    f"({kk} < K) & ({cc} < {ext}));")
                        for e in range(4):
                            idx = f"{base} + ({kk}) * {ld} + {cc} + {e}u"
                            scal.append(f"{s}    {reg}{g}.{'xyzw'[e]} = select(0.0, {arr}[min(({idx}) >> 2u, {last})][({idx}) & 3u], "
                                        f"({kk} < K) & ({cc} + {e}u < {ext}));")
                if mode == "vec":
                    out.extend(line[4:] for line in vecb)
                elif mode == "scal" or not vecg:
                    out.extend(line[4:] for line in scal)
                else:
                    out.append(f"{s}if ({o['vec']}) {{")
                    out.extend(vecb)
                    out.append(f"{s}}} else {{")
                    out.extend(scal)
                    out.append(f"{s}}}")
            return out

        def store(indent, stage):
            s = " " * indent
            out = []
            for o in ops:
                x, arr, reg, R = o["x"], o["arr"], o["reg"], o["R"]
                for g in range(o["G"]):
                    if o["tr"]:
                        for e in range(4):
                            out.append(f"{s}{sref(arr, stage, f'l{x}_kk{g}_{e}', f'l{x}_r4_{g}', R)}[l{x}_rc{g}] = {reg}{g}.{'xyzw'[e]};")
                    else:
                        out.append(f"{s}{sref(arr, stage, f'l{x}_k{g}', f'l{x}_c4_{g}', R)} = {reg}{g};")
            return out

        def frag(s, stage, kk):
            r = [f"{s}let av{kk}_{ci} = {sref('As', stage, f'{kk}u', f'a4_{ci}', BM)};" for ci in range(TM // 4)]
            r += [f"{s}let bv{kk}_{cj} = {sref('Bs', stage, f'{kk}u', f'b4_{cj}', BN)};" for cj in range(TN // 4)]
            return r

        def fmas(s, kk):
            return [f"{s}acc{i}_{cj} = fma(vec4<f32>(av{kk}_{i // 4}.{'xyzw'[i % 4]}), bv{kk}_{cj}, acc{i}_{cj});"
                    for i in range(TM) for cj in range(TN // 4)]

        def compute(indent, stage, ahead):
            s = " " * indent
            out = []
            if ahead:
                out.extend(frag(s, stage, 0))
                for kk in range(BK):
                    if kk + 1 < BK:
                        out.extend(frag(s, stage, kk + 1))
                    out.extend(fmas(s, kk))
            else:
                for kk in range(BK):
                    out.extend(frag(s, stage, kk))
                    out.extend(fmas(s, kk))
            return out

        def mainloop(ind, mode, dbuf, ahead):
            s = " " * ind
            if dbuf:
                L.extend(load(ind, "0u", mode))
                L.extend(store(ind, "0u"))
                w(f"{s}workgroupBarrier();")
                w(f"{s}for (var t = 0u; t < ntiles; t = t + 1u) {{")
                w(f"{s}    let cur = t & 1u;\n{s}    let nxt = cur ^ 1u;")
                # No branches on the data path: past the last tile the guarded loads read zeros and the
                # store fills the idle buffer, which nothing reads afterwards.
                w(f"{s}    let k0 = (t + 1u) * {BK}u;")
                L.extend(load(ind + 4, "k0", mode))
                L.extend(compute(ind + 4, "cur", ahead))
                L.extend(store(ind + 4, "nxt"))
                w(f"{s}    workgroupBarrier();")
                w(f"{s}}}")
            else:
                w(f"{s}for (var t = 0u; t < ntiles; t = t + 1u) {{")
                w(f"{s}    let k0 = t * {BK}u;")
                L.extend(load(ind + 4, "k0", mode))
                L.extend(store(ind + 4, "0u"))
                w(f"{s}    workgroupBarrier();")
                L.extend(compute(ind + 4, "0u", ahead))
                w(f"{s}    workgroupBarrier();")
                w(f"{s}}}")

        if p["vec_only"]:
            mainloop(4, "vec", dbuf, ahead)
        elif split:
            w("    if (a_vec & b_vec) {")
            mainloop(8, "vec", dbuf, ahead)
            w("    } else {")
            mainloop(8, "scal", scal_dbuf, scal_ahead)
            w("    }")
        else:
            mainloop(4, None, dbuf, ahead)
        # epilogue
        for cj in range(TN // 4):
            w(f"    let cc{cj} = col0 + b4_{cj} * 4u;")
        for i in range(TM):
            w(f"    let r{i} = row0 + a4_{i // 4} * 4u + {i % 4}u;")
            w(f"    if (r{i} < M) {{")
            if p["vec_only"]:
                for cj in range(TN // 4):
                    w(f"        if (cc{cj} < N) {{ c[(c_base + r{i} * N + cc{cj}) >> 2u] = acc{i}_{cj}; }}")
                w("    }")
                continue
            w("        if (c_vec) {")
            for cj in range(TN // 4):
                w(f"            if (cc{cj} < N) {{ c[(c_base + r{i} * N + cc{cj}) >> 2u] = acc{i}_{cj}; }}")
            w("        } else {")
            for cj in range(TN // 4):
                for e in range(4):
                    w(f"            if (cc{cj} + {e}u < N) {{ let o = c_base + r{i} * N + cc{cj} + {e}u; "
                      f"c[o >> 2u][o & 3u] = acc{i}_{cj}.{'xyzw'[e]}; }}")
            w("        }")
            w("    }")
        w("}\n")
    text = "\n".join(L)
    if p["aligned"]:
        import re
        al = dict({"vec_only": True}, **p["aligned"], aligned=None)
        other = gen(al)
        # Its entry points and workgroup arrays under their own names; Params and the
        # bindings are this module's.
        body = other[other.index("var<workgroup> As"):]
        body = re.sub(r"\b(As|Bs)\b", r"\1_al", body)
        body = re.sub(r"\bfn (forward|backward_da|backward_db)\(", r"fn \1_aligned(", body)
        text += "\n// Entry points for shapes whose M, N and K are multiples of 4 (kernel.aligned), " \
                f"gen_sgemm2.py {json.dumps(al, sort_keys=True)}:\n" + body
    return text


def kernel_yaml(cfg, trusted=False):
    p = dict(DEFAULTS)
    p.update(cfg)
    return ("file: gemm.wgsl\n"
            "entry_points: {forward: forward, backward_da: backward_da, backward_db: backward_db}\n"
            "workgroups:\n"
            f"  x: ceil(N/{p['BN']})\n"
            f"  y: ceil(M/{p['BM']})\n"
            "  z: B\n"
            f"trusted: {'true' if trusted else 'false'}\n"
            + ("aligned:\n  to: 4\n  entry_points: {forward: forward_aligned, backward_da: backward_da_aligned, "
               "backward_db: backward_db_aligned}\n" if p["aligned"] else ""))


if __name__ == "__main__":
    # gen_sgemm2.py OUT_DIR 'JSON config' trusted(0|1) "hypothesis"
    import os
    d, cfg, trusted, hyp = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3] == "1", sys.argv[4]
    os.makedirs(d, exist_ok=True)
    open(f"{d}/gemm.wgsl", "w").write(gen(cfg))
    open(f"{d}/kernel.yaml", "w").write(kernel_yaml(cfg, trusted))
    open(f"{d}/hypothesis.txt", "w").write(hyp + "\n")
