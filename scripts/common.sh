# Shared by scripts/demo and scripts/test: install missing build dependencies
# (Debian packages, as root) and build the project out of tree.
# Sourced, not executed.

# Debian packages the build and the test suite need.
NVTXW_DEPS="gcc g++ make autoconf automake libtool pkg-config libzstd-dev libxxhash-dev libyaml-dev libyajl-dev check
libopen-trace-format2-dev otf2-tools python3-otf2 python3-yaml libsqlite3-dev sqlite3 python3 clang clang-format
libclang-rt-14-dev protobuf-compiler python3-protobuf python3-zstandard openmpi-bin libopenmpi-dev"

nvtxw_die() {
    echo "$(basename "$0"): error: $*" >&2
    exit 1
}

# Installs whichever of NVTXW_DEPS are missing. apt-get update runs once, and
# only when something is missing.
nvtxw_install_deps() {
    local missing="" pkg
    for pkg in $NVTXW_DEPS; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
            missing="$missing $pkg"
    done
    # Node.js and npm run the headless viewer check (make check-long). Keep a
    # Node that is already there (it may come from another repository, with
    # npm bundled); otherwise take Debian's nodejs and npm.
    command -v node >/dev/null 2>&1 || missing="$missing nodejs"
    command -v npm >/dev/null 2>&1 || missing="$missing npm"
    [ -z "$missing" ] && return 0
    if [ "$(id -u)" != 0 ]; then
        nvtxw_die "missing packages:$missing (run as root, or install them with apt-get)"
    fi
    echo "Installing build dependencies:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq || nvtxw_die "apt-get update failed"
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
        nvtxw_die "apt-get install failed for:$missing"
}

# nvtxw_build DIR [configure options...]: configure (once) and build in DIR,
# saying each step and, every 15 s while make runs, how far it got (the
# compiler's output goes to DIR/build.log).
nvtxw_build() {
    local dir=$1 pid start last compiled
    shift
    if [ ! -x "$NVTXW_TOP/configure" ] || [ "$NVTXW_TOP/configure.ac" -nt "$NVTXW_TOP/configure" ]; then
        echo "  generating configure (autoreconf) ..."
        (cd "$NVTXW_TOP" && autoreconf -fi >/dev/null 2>&1) || nvtxw_die "autoreconf failed"
    fi
    mkdir -p "$dir"
    if [ ! -f "$dir/Makefile" ]; then
        echo "  configuring ..."
        (cd "$dir" && "$NVTXW_TOP/configure" -q "$@") || nvtxw_die "configure failed in $dir"
    fi
    echo "  compiling with $(nproc) jobs (log: $dir/build.log) ..."
    make -C "$dir" -j"$(nproc)" >"$dir/build.log" 2>&1 &
    pid=$!
    start=$SECONDS
    last=$SECONDS
    while kill -0 "$pid" 2>/dev/null; do
        sleep 1
        if [ $((SECONDS - last)) -ge 15 ]; then
            compiled=$(grep -c '^ *CC' "$dir/build.log" || true)
            echo "  ... $compiled files compiled so far ($((SECONDS - start)) s)"
            last=$SECONDS
        fi
    done
    wait "$pid" || {
        tail -n 40 "$dir/build.log" >&2
        nvtxw_die "build failed in $dir (full log: $dir/build.log)"
    }
    echo "  built in $((SECONDS - start)) s"
}

NVTXW_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
