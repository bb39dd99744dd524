#!/usr/bin/env bash
# The GPU check (DESIGN §6): run on a GPU host (H200, Ubuntu, CUDA 13 driver, PyTorch; maybe no package
# manager) with a build made on a development machine and copied along. Prints one line per check:
#   PASS name figure   |   FAIL name why        (and a few "INFO" lines that teach something when it fails)
# Usage: tests/gpu/run.sh [BUILD_DIR]   (default: build; run from the repository root; DRY_RUN=1 runs every
# check even when train falls back to the C backend, to try the script on a machine without a GPU). Exit status: the
# number of failed checks (capped at 100). A missing piece fails its checks with the reason; the rest goes on.
# Finishes in under 4 minutes: every command's timeout is cut to the time left before LIMIT_S (230 s), and a
# step that no longer fits is reported as skipped.
set -u
BUILD=${1:-build}
OUT=${OUT:-$(mktemp -d /tmp/perfscope-gpu-check.XXXXXX)}
mkdir -p "$OUT"
PS=$BUILD/cli/perfscope
PROBE=$BUILD/probe/libperfscope_probe.so
TRAIN=$BUILD/workloads/train
T0=$(date +%s)
LIMIT_S=${LIMIT_S:-230}         # the whole script ends by then (4-minute claim, 10 s to spare)
BUDGET_S=${BUDGET_S:-95}        # the overhead check starts no new run after this many seconds
OVH_RUN_S=${OVH_RUN_S:-8}       # each timed overhead run lasts about this long (CUPTI's attach cost stays small)
FAILS=0

pass() { echo "PASS $1 $2"; }
fail() { echo "FAIL $1 $2"; FAILS=$((FAILS + 1)); }
info() { echo "INFO $*"; }
elapsed() { echo $(( $(date +%s) - T0 )); }
now_ns() { date +%s%N; }
# tmo CAP: a timeout of at most CAP seconds that still ends before LIMIT_S (0 when nothing is left).
tmo() { local left=$(( LIMIT_S - $(elapsed) )); [ "$left" -lt 0 ] && left=0; echo $(( left < $1 ? left : $1 )); }

# --- 0. the driver: CUDA 13 needs R580 or newer; an older one makes train fall back to its C backend ---
if command -v nvidia-smi >/dev/null 2>&1; then
    drv=$(timeout 20 nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>&1 | head -1 | tr -d ' ')
    major=${drv%%.*}
    if [ -n "$major" ] && [ "$major" -eq "$major" ] 2>/dev/null; then
        if [ "$major" -ge 580 ]; then pass "driver_version" "$drv (CUDA 13 needs R580+)"
        else fail "driver_version" "$drv: CUDA 13 needs R580+ (or the cuda-compat package's 580+ libcuda): train will run its C backend and CUPTI cannot attach"; fi
    else
        fail "driver_version" "nvidia-smi gave no driver version: $drv"
    fi
else
    fail "driver_version" "nvidia-smi not found: no NVIDIA driver on this host?"
fi

# --- 1. what the copied binaries cannot find on this host (first, so one failed try still teaches) ---
for b in "$PS" "$PROBE" "$TRAIN"; do
    if [ ! -e "$b" ]; then
        fail "binary_present" "$b missing (build with: cmake -S . -B $BUILD -G Ninja && ninja -C $BUILD)"
        continue
    fi
    missing=$(ldd "$b" 2>&1 | grep -E "not found|No such" || true)
    if [ -n "$missing" ]; then
        fail "ldd_$(basename "$b")" "unresolved: $(echo "$missing" | tr -s ' \t\n' ' ')"
    else
        pass "ldd_$(basename "$b")" "all shared libraries resolved"
    fi
done
info "host: $(uname -r) $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")"
if command -v nvidia-smi >/dev/null 2>&1; then
    info "gpu: $(timeout 20 nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -2 | tr '\n' ';')"
else
    info "nvidia-smi not found"
fi

# --- 2. a SQL/JSON helper: python3 (PyTorch hosts have it), else the sqlite3 CLI ---
PY=$(command -v python3 || true)
q() {   # q TRACE SQL -> first column of the first row ("" when none / error)
    if [ -n "$PY" ]; then
        "$PY" - "$1" "$2" <<'EOF' 2>/dev/null
import sqlite3, sys
try:
    r = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True).execute(sys.argv[2]).fetchone()
    print("" if r is None or r[0] is None else r[0])
except Exception as e:
    print("")
EOF
    elif command -v sqlite3 >/dev/null 2>&1; then
        sqlite3 -readonly "$1" "$2" 2>/dev/null | head -1
    fi
}
if [ -z "$PY" ] && ! command -v sqlite3 >/dev/null 2>&1; then
    fail "sql_reader" "neither python3 nor sqlite3 found: trace checks below cannot read the traces"
fi

# --- 2b. NVML: top's snapshot beside nvidia-smi (same name and memory total; utilisation and power in range) ---
if [ -x "$PS" ] && [ -n "$PY" ] && command -v nvidia-smi >/dev/null 2>&1; then
    timeout "$(tmo 30)" "$PS" top --iterations 3 -d 0.5 --snapshot json >"$OUT/top.json" 2>"$OUT/top.err"
    smi=$(timeout "$(tmo 20)" nvidia-smi --query-gpu=name,memory.total --format=csv,noheader,nounits 2>/dev/null | head -1)
    res=$("$PY" - "$OUT/top.json" "$smi" <<'EOF' 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
name, mem_mib = [x.strip() for x in sys.argv[2].split(",")]
g = d["gpu"]["devices"][0] if d["gpu"]["devices"] else None
if g is None:
    print("FAIL no device in top's snapshot: %s" % d["gpu"]["message"]); sys.exit()
problems = []
if g["name"] != name: problems.append("name %r vs nvidia-smi %r" % (g["name"], name))
# nvidia-smi's memory.total (MiB) and NVML's v2 total may differ by the driver's reserved memory: 2 %
if g["memory_total_bytes"] is None or abs(g["memory_total_bytes"] / 1048576 - float(mem_mib)) > 0.02 * float(mem_mib):
    problems.append("memory total %s B vs nvidia-smi %s MiB" % (g["memory_total_bytes"], mem_mib))
if g["util_sm_percent"] is None or not 0 <= g["util_sm_percent"] <= 100: problems.append("util %s" % g["util_sm_percent"])
if g["power_mw"] is None or not 0 < g["power_mw"] <= (g["power_limit_mw"] or 2000000) * 1.2:
    problems.append("power %s mW (limit %s)" % (g["power_mw"], g["power_limit_mw"]))
print(("FAIL " + "; ".join(problems)) if problems else
      "PASS %s, %d MiB, util %s %%, power %.0f W / %.0f W" % (g["name"], g["memory_total_bytes"] >> 20,
      g["util_sm_percent"], g["power_mw"] / 1000, (g["power_limit_mw"] or 0) / 1000))
EOF
)
    case $res in
    PASS*) pass "top_nvml_matches_nvidia_smi" "${res#PASS }" ;;
    *) fail "top_nvml_matches_nvidia_smi" "${res#FAIL } ($(head -c 200 "$OUT/top.err"))" ;;
    esac
else
    fail "top_nvml_matches_nvidia_smi" "needs perfscope, python3 and nvidia-smi"
fi
# --- 3. libcupti: the probe uses a libcupti.so.13 the program has loaded already (PyTorch's wheel: never a second
# CUPTI in one process), else PERFSCOPE_CUPTI_PATH, else libcupti.so.13 on the linker path / in the toolkit. train is
# a C program that loads none, so this one is used; cuptiMessage in the trace names the library the probe used. ---
if [ -z "${PERFSCOPE_CUPTI_PATH:-}" ]; then
    cand=$(ldconfig -p 2>/dev/null | awk '/libcupti\.so\.13 /{print $NF; exit}')
    for d in /usr/local/cuda/extras/CUPTI/lib64 /usr/local/cuda/lib64 /usr/local/cuda-13*/extras/CUPTI/lib64 \
             /usr/local/cuda-13*/lib64 /usr/lib/x86_64-linux-gnu; do
        [ -z "$cand" ] && [ -e "$d/libcupti.so.13" ] && cand="$d/libcupti.so.13"
    done
    if [ -z "$cand" ] && [ -n "$PY" ]; then
        for sp in $("$PY" -c 'import site,sys; print(" ".join(site.getsitepackages()+[site.getusersitepackages()]))' 2>/dev/null); do
            [ -z "$cand" ] && cand=$(find "$sp/nvidia" -maxdepth 4 -name 'libcupti.so.13*' 2>/dev/null | head -1)
        done
    fi
    if [ -n "$cand" ]; then
        export PERFSCOPE_CUPTI_PATH=$cand
        pass "libcupti_found" "$cand"
    else
        fail "libcupti_found" "no libcupti.so.13 in ldconfig, /usr/local/cuda*, or python site-packages/nvidia (set PERFSCOPE_CUPTI_PATH)"
    fi
else
    pass "libcupti_found" "$PERFSCOPE_CUPTI_PATH (from the environment)"
fi
export PERFSCOPE_LOG=$OUT/probe.log

# --- 3b. a small CUDA program with known work (tests/cupti/cuda_kernels.cu): every row checked ---
if [ -x "$BUILD/tests/cupti/cuda_kernels" ] && [ -x "$PS" ]; then
    res=$(timeout "$(tmo 60)" sh tests/cupti/cuda_program_test.sh gpu "$PS" "$BUILD/tests/cupti/cuda_kernels" 2>&1)
    case $? in
    0) pass "cupti_known_work_rows" "10 kernels, H2D/D2H/memset 1 MiB, sync, API joins, inside the NVTX range" ;;
    77) fail "cupti_known_work_rows" "the test program found no CUDA device" ;;
    *) fail "cupti_known_work_rows" "$(echo "$res" | tail -2 | tr '\n' ' ')" ;;
    esac
else
    fail "cupti_known_work_rows" "$BUILD/tests/cupti/cuda_kernels missing (built with nvcc by the cupti tests)"
fi

# --- 4. overhead of record on balanced (first, so the time budget never skips it) ---
# Runs of about OVH_RUN_S seconds each (steps from a warm-up's step time), bare and recorded, interleaved, median of
# what fits in BUDGET_S; the fixed cost of recording (start-up, CUPTI attach, exit flush, trace finish) is measured
# apart on 1-step runs, so a short run's attach cost is reported as such, not as per-step overhead.
kv() { grep -o "$2=[0-9.]*" "$1" | head -1 | cut -d= -f2; }     # kv FILE KEY -> number train printed
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
bare=(); rec=(); fb=(); fr=(); kern=""; steps=""
# Untimed warm-up: generates the data set, fills the page cache, gives the step time and the backend.
[ -x "$TRAIN" ] && timeout "$(tmo 60)" "$TRAIN" --scenario balanced --steps 20 >"$OUT/warmup.out" 2>&1
backend=$(grep '^backend=' "$OUT/warmup.out" 2>/dev/null | head -1)
if [ -n "$backend" ] && ! echo "$backend" | grep -q '^backend=cuda'; then
    fail "train_backend" "train ran its C backend: $backend"
fi
step_ms=$(grep -o 'phase_ms step=[0-9.]*' "$OUT/warmup.out" 2>/dev/null | head -1 | cut -d= -f2)
if [ -n "$step_ms" ]; then
    steps=$(awk -v s="$step_ms" -v t="$OVH_RUN_S" 'BEGIN{n = int(t * 1000 / (s > 0.01 ? s : 0.01)); if (n < 300) n = 300; if (n > 50000) n = 50000; print n}')
fi
if [ -n "$steps" ] && { echo "$backend" | grep -q '^backend=cuda' || [ -n "${DRY_RUN:-}" ]; }; then
    for i in 1 2 3; do
        t1=$(now_ns); timeout "$(tmo 30)" "$TRAIN" --scenario balanced --steps 1 >/dev/null 2>&1 || break; t2=$(now_ns)
        fb+=($(( t2 - t1 )))
        t1=$(now_ns); timeout "$(tmo 30)" "$PS" record -f -o "$OUT/fixed.$i.sqlite" -- "$TRAIN" --scenario balanced --steps 1 >/dev/null 2>&1 || break; t2=$(now_ns)
        fr+=($(( t2 - t1 )))
    done
    for i in 1 2 3 4 5; do
        [ $(( $(elapsed) + 3 * OVH_RUN_S )) -ge "$BUDGET_S" ] && break
        t1=$(now_ns); timeout "$(tmo 60)" "$TRAIN" --scenario balanced --steps "$steps" >"$OUT/bare.$i.out" 2>&1 || break; t2=$(now_ns)
        bare+=($(( t2 - t1 )))
        t1=$(now_ns); timeout "$(tmo 90)" "$PS" record -f -o "$OUT/ovh.$i.sqlite" -- "$TRAIN" --scenario balanced --steps "$steps" >"$OUT/ovh.$i.out" 2>&1 || break; t2=$(now_ns)
        rec+=($(( t2 - t1 )))
        kern=$(kv "$OUT/ovh.$i.out" kernels_launched)
    done
fi
fixed_ns=""
if [ ${#fb[@]} -ge 1 ] && [ ${#fr[@]} -ge 1 ]; then
    fixed_ns=$(( $(median "${fr[@]}") - $(median "${fb[@]}") ))
    pass "record_fixed_cost" "$(( fixed_ns / 1000000 ))ms per recorded process (1-step runs: record start-up, CUPTI attach, exit flush, trace finish; runs=${#fr[@]})"
else
    fail "record_fixed_cost" "the 1-step runs did not complete (backend: ${backend:-unknown})"
fi
if [ ${#bare[@]} -ge 2 ] && [ ${#rec[@]} -ge 2 ]; then
    mb=$(median "${bare[@]}"); mr=$(median "${rec[@]}")
    ratio=$(awk -v r="$mr" -v b="$mb" 'BEGIN{printf "%.4f", r / b}')
    steady=$(awk -v r="$mr" -v b="$mb" -v f="${fixed_ns:-0}" 'BEGIN{printf "%.4f", (r - f) / b}')
    fig="ratio=$ratio steady_ratio=$steady (fixed cost taken out) steps=$steps bare_median_ms=$((mb / 1000000)) record_median_ms=$((mr / 1000000)) runs=${#bare[@]}"
    if awk -v x="$ratio" 'BEGIN{exit !(x <= 1.03)}'; then pass "record_overhead_balanced" "$fig"
    else fail "record_overhead_balanced" "$fig (goal <= 1.03)"; fi
    if [ -n "$kern" ] && [ "$kern" -gt 0 ]; then
        per=$(( (mr - mb - ${fixed_ns:-0}) / kern ))
        if [ "$per" -lt 0 ]; then per="0ns (record not slower than bare within noise)"; else per="${per}ns"; fi
        pass "probe_cost_per_kernel_launch" "$per (record-bare median wall, fixed cost taken out, / $kern kernels)"
    else
        fail "probe_cost_per_kernel_launch" "train printed no kernels_launched"
    fi
    api=$(q "$OUT/ovh.1.sqlite" "SELECT avg(\"end\" - start) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId WHERE s.value LIKE 'cudaLaunchKernel%'")
    info "mean cudaLaunchKernel duration under record: ${api} ns"
else
    fail "record_overhead_balanced" "only ${#bare[@]} bare / ${#rec[@]} recorded runs of ${steps:-?} steps completed in the time budget (${BUDGET_S}s)"
fi

# --- 5. each scenario under record: counts in the trace = what train printed; the verdict ---
declare -A WANT=([data-bound]=data-loading [memcpy-bound]=memcpy [kernel-bound]=kernel [sync-bound]=sync [balanced]=)
LONGEST=""; LONGEST_S=0
for sc in data-bound memcpy-bound kernel-bound sync-bound balanced; do
    tr=$OUT/$sc.sqlite; log=$OUT/$sc.out
    [ -x "$PS" ] && [ -x "$TRAIN" ] || { fail "record_$sc" "perfscope or train missing"; continue; }
    t_rec=$(tmo 60)
    [ "$t_rec" -ge 20 ] || { fail "record_$sc" "skipped: $(elapsed)s used of the ${LIMIT_S}s limit"; continue; }
    t1=$(now_ns)
    timeout "$t_rec" "$PS" record -f -o "$tr" -- "$TRAIN" --scenario "$sc" >"$log" 2>&1
    rc=$?; t2=$(now_ns); dur_s=$(( (t2 - t1) / 1000000000 ))
    if [ $rc -ne 0 ]; then
        fail "record_$sc" "exit $rc after ${dur_s}s: $(tail -3 "$log" | tr '\n' ' ')"
        continue
    fi
    if ! grep -q "^backend=cuda" "$log"; then
        # e.g. "backend=cpu (no CUDA device (cudaGetDeviceCount: ...))": an old driver or no GPU
        fail "record_$sc" "train ran its C backend, not the GPU: $(grep '^backend=' "$log")"
        [ -n "${DRY_RUN:-}" ] || continue    # DRY_RUN=1: go on with the C backend to test this script
    fi
    pass "record_$sc" "${dur_s}s"
    [ "$dur_s" -ge "$LONGEST_S" ] && { LONGEST=$sc; LONGEST_S=$dur_s; }
    state=$(q "$tr" "SELECT group_concat(DISTINCT cuptiState) FROM PERFSCOPE_PROCESS_INFO WHERE cudaInjected = 1")
    msg=$(q "$tr" "SELECT cuptiMessage FROM PERFSCOPE_PROCESS_INFO WHERE cudaInjected = 1 LIMIT 1")
    if [ "$state" = "2" ]; then pass "cupti_active_$sc" "$msg"; else fail "cupti_active_$sc" "cuptiState=$state: $msg"; fi

    want_k=$(kv "$log" kernels_launched); got_k=$(q "$tr" "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL")
    if [ -n "$want_k" ] && [ "$want_k" = "$got_k" ]; then pass "kernels_$sc" "$got_k"
    else fail "kernels_$sc" "trace has '${got_k}' kernel rows, train printed kernels_launched=${want_k}"; fi
    for dir in h2d:1 d2h:2; do
        name=${dir%%:*}; kind=${dir##*:}
        want_b=$(kv "$log" ${name}_bytes)
        got_b=$(q "$tr" "SELECT coalesce(sum(bytes),0) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = $kind")
        if [ -n "$want_b" ] && [ "$want_b" = "$got_b" ]; then pass "${name}_bytes_$sc" "$got_b"
        else fail "${name}_bytes_$sc" "trace has '${got_b}' bytes, train printed ${name}_bytes=${want_b}"; fi
    done
    # GPU and host events share CLOCK_MONOTONIC: kernels fall inside the recorded session.
    bad=$(q "$tr" "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE start < 0 OR \"end\" < start OR start > (SELECT max(\"end\") FROM NVTX_EVENTS) + 1000000000")
    if [ "$bad" = "0" ]; then pass "gpu_times_$sc" "kernels within the session"
    elif [ -z "$bad" ]; then fail "gpu_times_$sc" "no CUPTI_ACTIVITY_KIND_KERNEL table in the trace"
    else fail "gpu_times_$sc" "$bad kernels outside the session's time range"; fi
    want=${WANT[$sc]}
    if [ -n "$want" ]; then
        json=$OUT/$sc.report.json
        timeout "$(tmo 20)" "$PS" report --format json "$tr" >"$json" 2>"$OUT/$sc.report.err"
        got=$([ -n "$PY" ] && "$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"]["bottleneck"])' "$json" 2>/dev/null)
        if [ "$got" = "$want" ]; then pass "verdict_$sc" "$got"
        else fail "verdict_$sc" "report says '${got}', expected $want ($(head -c 200 "$OUT/$sc.report.err"))"; fi
    fi
done

# --- 5b. PyTorch through perfscope's Python hook (workloads/pytorch/train_loader.py on the GPU): num_workers=0 with
# a heavy transform is data-loading bound, 8 workers with pinned memory is not; kernels and the hook's copies are there ---
TORCH_OK=$([ -n "$PY" ] && timeout "$(tmo 30)" "$PY" -c 'import torch; print(int(torch.cuda.is_available()))' 2>/dev/null)
for run in "w0:--workers 0 --heavy-transform:data-loading" "w8:--workers 8 --pin-memory:not-data-loading"; do
    name=${run%%:*}; rest=${run#*:}; args=${rest%%:*}; want=${rest#*:}
    if [ "$TORCH_OK" != "1" ]; then fail "pytorch_$name" "python3 cannot import torch with CUDA (${TORCH_OK:-no torch})"; continue; fi
    t_rec=$(tmo 60)
    [ "$t_rec" -ge 20 ] || { fail "pytorch_$name" "skipped: $(elapsed)s used of the ${LIMIT_S}s limit"; continue; }
    tr=$OUT/pytorch_$name.sqlite; log=$OUT/pytorch_$name.out
    # shellcheck disable=SC2086
    timeout "$t_rec" "$PS" record -f -o "$tr" -- "$PY" workloads/pytorch/train_loader.py $args --steps 30 --device cuda >"$log" 2>&1
    rc=$?
    [ $rc -eq 0 ] || { fail "pytorch_$name" "exit $rc: $(tail -3 "$log" | tr '\n' ' ')"; continue; }
    timeout "$(tmo 20)" "$PS" report --format json "$tr" >"$OUT/pytorch_$name.json" 2>"$OUT/pytorch_$name.err"
    res=$("$PY" - "$OUT/pytorch_$name.json" "$want" <<'EOF'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
    v, py = r["verdict"]["bottleneck"], r.get("pytorch") or {}
    ok = (v == "data-loading") == (sys.argv[2] == "data-loading") and len(r["steps"]) >= 29
    print("%s verdict=%s share=%s steps=%d kernels=%d copies_to_device=%s workers=%d advice=%r" % (
        "ok" if ok else "bad", v, r["verdict"]["share"], len(r["steps"]), sum(k["count"] for k in r["kernels"]),
        (py.get("copies_to_device") or {}).get("count"), len(py.get("workers") or []), (py.get("advice") or [""])[:1]))
except Exception as e:
    print("bad report unreadable: %r" % (e,))
EOF
)
    kern=$(q "$tr" "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL")
    if [ "${res%% *}" = "ok" ] && [ "${kern:-0}" -gt 0 ]; then pass "pytorch_$name" "${res#ok } kernel_rows=$kern"
    else fail "pytorch_$name" "want $want and kernel rows: ${res#* } kernel_rows=${kern:-none} ($(grep -E '^(steps|data wait)' "$log" | tr '\n' ' '))"; fi
done
pinned=$(q "$OUT/pytorch_w8.sqlite" "SELECT count(*) FROM NVTX_EVENTS WHERE text = 'copy_to_device' AND category = 4")
if [ "${pinned:-0}" -gt 0 ]; then pass "pytorch_pinned_non_blocking_copies" "$pinned copy_to_device ranges from pinned memory, non_blocking"
else fail "pytorch_pinned_non_blocking_copies" "no copy_to_device range with category 4 in the --pin-memory run"; fi

# --- 6. dropped records on the longest run (goal 0) ---
if [ -n "$LONGEST" ]; then
    tr=$OUT/$LONGEST.sqlite
    gd=$(q "$tr" "SELECT value FROM PERFSCOPE_META WHERE name = 'gpu_dropped_records'")
    rd=$(q "$tr" "SELECT coalesce(sum(droppedRecords), 0) FROM PERFSCOPE_PROCESS_INFO")
    nt=$(q "$tr" "SELECT value FROM PERFSCOPE_META WHERE name = 'gpu_records_without_timestamps'")
    fig="gpu=${gd:-none} ring=${rd:-none} without_timestamps=${nt:-none} (run: $LONGEST, ${LONGEST_S}s)"
    if [ "${gd:-x}" = "0" ] && [ "${rd:-x}" = "0" ]; then pass "dropped_records_longest_run" "$fig"
    else fail "dropped_records_longest_run" "$fig"; fi
else
    fail "dropped_records_longest_run" "no scenario was recorded"
fi
# --- 7. record's NVML samples in the kernel-bound trace (PERFSCOPE_GPU_SAMPLES) ---
if [ -e "$OUT/kernel-bound.sqlite" ]; then
    tr=$OUT/kernel-bound.sqlite
    gs=$(q "$tr" "SELECT value FROM PERFSCOPE_META WHERE name = 'gpu_samples'")
    gn=$(q "$tr" "SELECT count(*) FROM PERFSCOPE_GPU_SAMPLES WHERE utilGpuPercent IS NOT NULL")
    gmax=$(q "$tr" "SELECT max(utilGpuPercent) FROM PERFSCOPE_GPU_SAMPLES")
    if [ "$gs" = nvml ] && [ "${gn:-0}" -gt 0 ]; then pass "record_gpu_samples" "$gn samples, max utilisation ${gmax}% (kernel-bound)"
    else fail "record_gpu_samples" "gpu_samples='$gs', ${gn:-0} rows with utilisation"; fi
else
    fail "record_gpu_samples" "no kernel-bound trace was recorded"
fi
info "traces and logs in $OUT; probe log: $( { wc -l < "$PERFSCOPE_LOG"; } 2>/dev/null || echo 0) lines; total $(elapsed)s"
exit $(( FAILS > 100 ? 100 : FAILS ))
