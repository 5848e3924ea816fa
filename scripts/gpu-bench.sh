#!/usr/bin/env bash
# Builds Stampede and benchmarks every technique on a headless Linux machine
# with a real GPU (NVIDIA), counts up to 1,000,000, writing JSON, CSV, the
# chart and the printed table to OUTDIR; then the VAT precisions, and VAT
# and static with culling and LOD on and off up to 1,000,000; then VAT
# against the skinning techniques with shadows off and on (the last step).
#
#   scripts/gpu-bench.sh OUTDIR
#
# Env: STAMPEDE_BIN=path to use a prebuilt binary instead of cargo;
#      COUNTS, FRAMES, WARMUP, SIZE, BUDGET_S to change the run.
# The Vulkan loader is brought up when missing: from .gl/*.deb in the repo
# (packages downloaded beforehand, for machines with no network), else apt-get.
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:?usage: scripts/gpu-bench.sh OUTDIR}
mkdir -p "$out"
counts=${COUNTS:-100,1000,10000,100000,1000000}
frames=${FRAMES:-100}
warmup=${WARMUP:-10}
size=${SIZE:-1280x720}
budget=${BUDGET_S:-240}

if command -v nvidia-smi >/dev/null; then
    nvidia-smi | tee "$out/nvidia-smi.txt" || true
else
    echo "nvidia-smi: not found"
fi

# The Vulkan loader.
if ! ldconfig -p | grep -q 'libvulkan\.so\.1'; then
    if compgen -G '.gl/*.deb' >/dev/null; then
        echo "unpacking the loader from .gl/*.deb"
        for f in .gl/*.deb; do dpkg -x "$f" /; done
        ldconfig
    elif command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
        apt-get update -qq && apt-get install -y -qq --no-install-recommends libvulkan1 || true
    fi
fi
ldconfig -p | grep -q 'libvulkan\.so\.1' || { echo "no Vulkan loader (libvulkan.so.1); see the header" >&2; exit 1; }

# The NVIDIA driver's ICD manifest, where the loader may not look by itself.
if [ -z "${VK_ICD_FILENAMES:-}${VK_DRIVER_FILES:-}" ]; then
    for icd in /usr/share/vulkan/icd.d/nvidia_icd.json /etc/vulkan/icd.d/nvidia_icd.json \
        /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.x86_64.json; do
        if [ -f "$icd" ]; then
            export VK_DRIVER_FILES="$icd" VK_ICD_FILENAMES="$icd"
            echo "Vulkan ICD: $icd"
            break
        fi
    done
fi
export WGPU_BACKEND=${WGPU_BACKEND:-vulkan}
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
export RUST_LOG=${RUST_LOG:-warn}

# The binary.
bin=${STAMPEDE_BIN:-}
if [ -z "$bin" ]; then
    if command -v cargo >/dev/null; then
        cargo build --release
    fi
    bin=target/release/stampede
fi
[ -x "$bin" ] || { echo "no binary at $bin (no cargo here? build elsewhere and set STAMPEDE_BIN)" >&2; exit 1; }

set -x
"$bin" bench --counts "$counts" --frames "$frames" --warmup "$warmup" --size "$size" \
    --budget-s "$budget" --json "$out/bench.json" --csv "$out/bench.csv" \
    --chart "$out/bench.png" 2>&1 | tee "$out/bench.txt"
"$bin" bench --bake --reps 3 --json "$out/bake.json" 2>&1 | tee "$out/bake.txt"
# The VAT's texel precision where bandwidth matters: VAT and the static floor
# at two large counts, per precision (docs/benchmarks.md, "VAT precision").
for precision in f16 packed f32; do
    "$bin" bench --techniques vat,static --counts 100000,1000000 --frames "$frames" \
        --warmup "$warmup" --size 320x180 --budget-s 60 --precision "$precision" \
        --json "$out/precision-$precision.json" 2>&1 | tee "$out/precision-$precision.txt"
done
# Culling and LOD (docs/benchmarks.md, "Culling and LOD"): VAT and the static
# floor up to 1,000,000 in the opening view, both on, culling only, both off.
for mode in on-on on-off off-off; do
    culling=${mode%-*} lod=${mode#*-}
    "$bin" bench --techniques vat,static --counts 10000,100000,1000000 --frames "$frames" \
        --warmup "$warmup" --size "$size" --budget-s 60 --culling "$culling" --lod "$lod" \
        --json "$out/cull-$mode.json" 2>&1 | tee "$out/cull-$mode.txt"
done

# --- Is VAT worth it? (docs/benchmarks.md, "Is VAT worth it?") ---
# VAT against the skinning techniques, the compute-skinning pair among them
# (their skin pass is timed apart: technique_gpu_ms), with culling and LOD
# on, shadows off and on (one pass against four), at 1,000 to 100,000
# horses. At most 2 × 30 s of budget.
for shadows in off on; do
    "$bin" bench --techniques vat,skinning,bone-texture,compute-skinning,compute-bone-texture \
        --counts 1000,10000,100000 --frames 20 --warmup 3 --size "$size" --budget-s 30 \
        --shadows "$shadows" --json "$out/worth-shadows-$shadows.json" 2>&1 \
        | tee "$out/worth-shadows-$shadows.txt"
done
