#!/usr/bin/env bash
# Benchmarks Stampede on a headless Linux machine with a real GPU (NVIDIA),
# most telling figures first, each written to OUTDIR as soon as it is
# measured (JSON, CSV and the printed table per step), so a run cut short
# still returns what it measured. With a prebuilt binary the whole script
# takes under 6 minutes (every step has its own time limit):
#   1. 1,000,000 horses at 1280x720 in the herd's view, the defaults
#      (culling, LOD, the far field, shadows) and in the same run the far
#      field off (--compare-far-field), the splats off (--compare-splat) and
#      each vertex computing its state (--compare-state), then 10,000,000
#      horses, the impostors' early depth test on and off (splats off),
#      the shadow cascades culling every horse rather than the camera's
#      list (--caster-list off), then culling, LOD and shadows off;
#   2. every technique at 10,000 horses (the defaults);
#   3. the far field at 10,000 and 100,000 (with and without it), occlusion
#      culling on and off at 30,000 and 1,000,000 (two views, the second
#      also without impostors) and what a perfect occlusion culler would
#      draw at 1,000,000 (--exact-visibility), TAA against MSAA, none and the velocity target alone (10,000 and 100,000), then VAT
#      against the skinning techniques (compute skinning among them),
#      shadows off and on;
#   4. then, while time is left: the VAT precisions, culling and LOD at up
#      to 1,000,000, occlusion culling behind the herd and what a perfect
#      culler would draw inside it, the bake timings.
#
#   scripts/gpu-bench.sh OUTDIR
#
# Env: STAMPEDE_BIN=path to use a prebuilt binary instead of cargo;
#      FRAMES, WARMUP, SIZE, TOTAL_S (the whole script's limit, default
#      330 s) to change the run.
# The Vulkan loader is brought up when missing: from .gl/*.deb in the repo
# (packages downloaded beforehand, for machines with no network), else apt-get.
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:?usage: scripts/gpu-bench.sh OUTDIR}
mkdir -p "$out"
frames=${FRAMES:-30}
warmup=${WARMUP:-5}
size=${SIZE:-1280x720}
total=${TOTAL_S:-330}
started=$(date +%s)

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
started=$(date +%s)

# One step: `step NAME LIMIT_S bench-args...`. Runs within LIMIT_S and what
# is left of the total, writes NAME.json/.csv/.txt, and goes on whatever
# happens (a step that runs out of time leaves its partial table).
step() {
    local name=$1 limit=$2
    shift 2
    local left=$((total - ($(date +%s) - started)))
    if [ "$left" -le 10 ]; then
        echo "skipped $name: the ${total} s are spent" | tee "$out/$name.txt"
        return 0
    fi
    [ "$limit" -gt "$left" ] && limit=$left
    echo "== $name (at most $limit s)"
    timeout --signal=INT --kill-after=10 "$limit" "$bin" bench "$@" --budget-s "$((limit - 5))" \
        --json "$out/$name.json" --csv "$out/$name.csv" 2>&1 | tee "$out/$name.txt" || true
}

# The herd's view; `herd` with the run's frames (a step with frames of its
# own takes `view`: clap refuses a flag given twice).
view=(--behaviour on --size "$size")
herd=("${view[@]}" --frames "$frames" --warmup "$warmup")
# 1. A million horses: the defaults and, in the same run, the far field
# off and the splats off; then everything off.
step million 90 --techniques vat --counts 1000000 "${herd[@]}" --compare-far-field --compare-splat \
    --compare-state
# 1a. Ten million horses (the crowd's largest; its buffers need bindings
# past 128 MiB, which lavapipe cannot give): a few frames, the defaults.
step ten-million 60 --techniques vat --counts 10000000 "${view[@]}" --frames 5 --warmup 1
# 1b. The impostors' early depth test on and off (off: the device opened
# as a browser's, the depth test after their fragments), the splats off so
# that the far field is all impostor quads.
step early-depth-on 30 --techniques vat --counts 1000000 "${view[@]}" --frames 10 --warmup 2 \
    --splat off
step early-depth-off 30 --techniques vat --counts 1000000 "${view[@]}" --frames 10 --warmup 2 \
    --splat off --early-depth off
# 1c. The shadow cascades' cull passes over every horse, not the camera's
# list of those in their boxes (the million step above has the list).
step caster-list-off 30 --techniques vat --counts 1000000 "${herd[@]}" --caster-list off
step million-all-off 60 --techniques vat --counts 1000000 "${view[@]}" --frames 5 --warmup 1 \
    --culling off --lod off --shadows off
# 2. Every technique at 10,000 with the defaults.
step techniques-10k 60 --counts 10000 "${herd[@]}"
# 3. The far field with and without, at 10,000 and 100,000 (VAT and static).
step far-field 60 --techniques vat,static --counts 10000,100000 "${herd[@]}" --compare-far-field
# 3a. Occlusion culling on and off (its default is off from lavapipe's
# figures; a real GPU may decide otherwise): the herd's view and one inside
# the herd at eye level, there also without impostors (where it pays most).
step occlusion-herd 30 --techniques vat --counts 30000,1000000 "${herd[@]}" --compare-occlusion
step occlusion-eye 30 --techniques vat --counts 30000,1000000 "${herd[@]}" --compare-occlusion \
    --camera 90,1,4
step occlusion-eye-noimp 30 --techniques vat --counts 30000,1000000 "${herd[@]}" --compare-occlusion \
    --camera 90,1,4 --impostors off
# 3a''. What a perfect occlusion culler would draw in the herd's view
# (each instance drawn alone against the frame's depth: counts, not times).
step exact-herd 60 --techniques vat --counts 1000000 "${view[@]}" --frames 1 --warmup 3 \
    --compare-occlusion --exact-visibility
# 3a'. TAA against 4x MSAA, no anti-aliasing and the velocity target alone
# (MSAA is the default from lavapipe's figures).
step aa 30 --techniques vat,skinning --counts 10000,100000 "${herd[@]}" --aa taa --compare-aa
# 3b. Is VAT worth it? (docs/benchmarks.md): VAT against the skinning
# techniques, the compute-skinning pair among them (their skin pass is timed
# apart: technique_gpu_ms), shadows off and on, 1,000 to 100,000 horses.
# Impostors off: the bench's camera frames the whole crowd, where every
# horse would otherwise be the same impostor quad whatever the technique.
for shadows in off on; do
    step "worth-shadows-$shadows" 30 \
        --techniques vat,skinning,bone-texture,compute-skinning,compute-bone-texture \
        --counts 1000,10000,100000 --frames 20 --warmup 3 --size "$size" --shadows "$shadows" \
        --impostors off
done
# 4. While time is left.
for precision in f16 packed f32; do
    step "precision-$precision" 25 --techniques vat,static --counts 100000,1000000 \
        --frames "$frames" --warmup "$warmup" --size 320x180 --precision "$precision"
done
step culling 40 --techniques vat,static --counts 10000,100000,1000000 --frames "$frames" \
    --warmup "$warmup" --size "$size" --compare-culling
# Occlusion culling behind the herd at eye level (impostors on and off), and
# what a perfect culler would draw inside it.
for imp in on off; do
    step "occlusion-behind-imp$imp" 30 --techniques vat --counts 30000,1000000 "${herd[@]}" \
        --compare-occlusion --camera 180,1,6 --impostors "$imp"
done
step exact-eye 40 --techniques vat --counts 30000,1000000 "${view[@]}" --frames 1 --warmup 3 \
    --compare-occlusion --exact-visibility --camera 90,1,4
left=$((total - ($(date +%s) - started)))
if [ "$left" -gt 20 ]; then
    timeout "$left" "$bin" bench --bake --reps 3 --json "$out/bake.json" 2>&1 | tee "$out/bake.txt" || true
fi
echo "done in $(( $(date +%s) - started )) s"
