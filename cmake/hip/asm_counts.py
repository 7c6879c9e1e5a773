#!/usr/bin/env python3
"""Counts, per kernel, the AMDGPU instructions that show a rung's idea, in the assembly that
`cmake --build --preset hip --target hip_asm` writes (hipcc --save-temps). One row per kernel
instantiation: float and double, op flags NN, and the 16-byte path (Vec = true) where the rung
has one. Counts are over the whole kernel: its k loop appears once, unrolled over the k tile,
beside the prologue, the edge paths and the epilogue. docs/hip.md quotes the table.

    python3 cmake/hip/asm_counts.py build/hip/asm/*-gfx906.s
"""
import re
import sys

# "fma" is v_fmac_f32 + v_fma_f32 + v_mac_f32 for float, v_fma_f64 for double.
COUNTED = ["fma", "ds_read_b128", "ds_read_b64", "ds_read2_b64", "ds_read2_b32", "ds_read_b32",
           "ds_write_b128", "global_load_dwordx4", "global_load_dwordx2", "global_load_dword",
           "s_barrier"]
FMA = {"f32": ["v_fmac_f32", "v_fma_f32", "v_mac_f32"], "f64": ["v_fma_f64"]}


def kernels(text):
    """(mangled name, body, NumVgprs, ScratchSize, Occupancy) of every kernel in a .s file."""
    for m in re.finditer(r"^(_Z\w+):[^\n]*\n(.*?)^\.Lfunc_end\d+:(.*?)(?=^\s*\.section\s+\.text|\Z)",
                         text, re.S | re.M):
        name, body, tail = m.group(1), m.group(2), m.group(3)
        info = {k: re.search(r"; %s: (\d+)" % k, tail) for k in ("NumVgprs", "ScratchSize", "Occupancy")}
        yield name, body, {k: (v.group(1) if v else "?") for k, v in info.items()}


def wanted(name):
    """float or double, NN, and Vec = true where the kernel has a Vec flag."""
    m = re.search(r"([fd])((?:Lb[01]E){2,})E", name)
    if not m:
        return None
    flags = re.findall(r"Lb([01])E", m.group(2))
    if flags[:2] != ["0", "0"] or any(f != "1" for f in flags[2:]):
        return None
    return "f32" if m.group(1) == "f" else "f64"


def main(paths):
    print("| rung | type | " + " | ".join(COUNTED) + " | VGPRs | scratch | occupancy |")
    print("|---|---|" + "---|" * (len(COUNTED) + 3))
    for path in sorted(paths):
        rung = re.sub(r"-hip-amdgcn.*", "", path.split("/")[-1])
        for name, body, info in kernels(open(path).read()):
            t = wanted(name)
            if not t:
                continue
            # an encoding suffix (_e32, _e64) may follow the mnemonic
            def count(op):
                return len(re.findall(r"^\s*%s(?:_e32|_e64)?\s" % op, body, re.M))
            counts = [sum(count(x) for x in FMA[t]) if op == "fma" else count(op) for op in COUNTED]
            print(f"| {rung} | {t} | " + " | ".join(map(str, counts)) +
                  f" | {info['NumVgprs']} | {info['ScratchSize']} | {info['Occupancy']} |")


if __name__ == "__main__":
    main(sys.argv[1:])
