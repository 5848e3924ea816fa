#!/usr/bin/env bash
# Builds the viewer for the browser (WebGPU) into target/web/: the example
# examples/browser compiled to wasm32, wasm-bindgen's JavaScript beside it,
# and the page. With --serve it then serves that folder on 127.0.0.1:8000
# (any static file server does; WebGPU needs localhost or https).
#
#   rustup target add wasm32-unknown-unknown
#   cargo install wasm-bindgen-cli --version <the version in Cargo.lock>
#   scripts/web.sh --serve        # then open http://127.0.0.1:8000/
#
# Flags go in the address: http://127.0.0.1:8000/?args=--model+bird+--count+2000
# STAMPEDE_WEB_OUT sets the output folder, STAMPEDE_WEB_PROFILE=dev a debug build.
set -euo pipefail
cd "$(dirname "$0")/.."

out=${STAMPEDE_WEB_OUT:-target/web}
profile=${STAMPEDE_WEB_PROFILE:-release}
serve=false
for arg in "$@"; do
    case $arg in
        --serve) serve=true ;;
        *) echo "usage: scripts/web.sh [--serve]" >&2; exit 2 ;;
    esac
done

# wasm-bindgen's command must be the version the crate is locked to.
need=$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/version = |"/, ""); print; exit}' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$need" ]; then
    echo "scripts/web.sh needs wasm-bindgen $need (found: ${have:-none}):" >&2
    echo "  cargo install wasm-bindgen-cli --version $need" >&2
    exit 1
fi

cargo build --example browser --target wasm32-unknown-unknown --profile "$profile"
dir=$([ "$profile" = dev ] && echo debug || echo "$profile")
target_dir=${CARGO_TARGET_DIR:-target}
mkdir -p "$out"
wasm-bindgen --target web --no-typescript --out-dir "$out" --out-name stampede \
    "$target_dir/wasm32-unknown-unknown/$dir/examples/browser.wasm"
cp examples/browser/index.html "$out/"
echo "built $out: $(du -h "$out/stampede_bg.wasm" | cut -f1) of WebAssembly ($(gzip -c "$out/stampede_bg.wasm" | wc -c) bytes gzipped)"

if $serve; then
    echo "serving $out on http://127.0.0.1:8000/"
    exec python3 -m http.server --directory "$out" --bind 127.0.0.1 8000
fi
