#!/usr/bin/env bash
# The GPU check: perfscope on a real GPU host (an H200, Ubuntu, CUDA 13 driver R580+, PyTorch; maybe no package
# manager), with a build made on a development machine and carried along (tests/gpu/pack.sh; docs/gpu-capture.md
# "Checking on a GPU"). One command, from the repository root:
#
#     tests/gpu/run.sh build-gpu          # BUILD_DIR: what tests/gpu/pack.sh made (a plain build dir works too)
#
# It prints one line per check, `PASS name figure` or `FAIL name why` (and `INFO` lines that help when one fails),
# and ends with one line `N passed, N failed`; the exit status is the number failed (at most 100). Everything it
# prints goes to $OUT/run.log; $OUT also gets checks.json (every check), reports.json (every `perfscope report
# --format json` it made) and traces.tar.gz (two traces, the probe's log, the programs' outputs) when that fits in
# 16 MiB: at most 8 files, what a device tool copies back. OUT defaults to a new /tmp/perfscope-gpu-check.* folder.
# It ends within LIMIT_S seconds (400: 7 minutes with the machine's start): every command's timeout is cut to what
# is left, and a check that no longer fits fails as skipped.
#
# DRY_RUN=1 runs every step on a machine without a GPU (train's C backend), to try the whole script path up to
# where a device is needed (ctest gpu_check_dry_run_reaches_every_check); SCENARIO_STEPS=N shortens each training
# scenario; WORK=DIR keeps the traces and logs there (default: a new /tmp/perfscope-gpu-work.* folder).
set -u
BUILD=${1:-build}
OUT=${OUT:-$(mktemp -d /tmp/perfscope-gpu-check.XXXXXX)}
mkdir -p "$OUT" || exit 100
WORK=${WORK:-$(mktemp -d /tmp/perfscope-gpu-work.XXXXXX)}     # every trace and log; the device tool takes only OUT
mkdir -p "$WORK" || exit 100
HERE=$(cd "$(dirname "$0")" && pwd)
CHECKS=$HERE/check_trace.py
PS=$BUILD/cli/perfscope
# shared libraries pack.sh carried (simdjson): found there by perfscope, harmless to the programs it records
[ -d "$BUILD/lib" ] && export LD_LIBRARY_PATH="$(cd "$BUILD/lib" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
PROBE=$BUILD/probe/libperfscope_probe.so
TRAIN=$BUILD/workloads/train
KERNELS=$BUILD/tests/cupti/cuda_kernels
LIMIT_S=${LIMIT_S:-400}         # the whole script ends by then
BUDGET_S=${BUDGET_S:-150}       # the overhead check starts no new pair of runs after this many seconds
OVH_RUN_S=${OVH_RUN_S:-8}       # each timed overhead run lasts about this long (CUPTI's attach cost stays small)
T0=$(date +%s)
NPASS=0 NFAIL=0

pass() { echo "PASS $1 $2"; printf '%s\t%s\t%s\n' PASS "$1" "$2" >>"$WORK/checks.tsv"; NPASS=$((NPASS + 1)); }
fail() { echo "FAIL $1 $2"; printf '%s\t%s\t%s\n' FAIL "$1" "$2" >>"$WORK/checks.tsv"; NFAIL=$((NFAIL + 1)); }
info() { echo "INFO $*"; }
elapsed() { echo $(( $(date +%s) - T0 )); }
now_ns() { date +%s%N; }
# tmo CAP: a timeout of at most CAP seconds that still ends before LIMIT_S (at least 1: `timeout 0` never stops).
tmo() { local left=$(( LIMIT_S - $(elapsed) )); [ "$left" -lt 1 ] && left=1; echo $(( left < $1 ? left : $1 )); }
# fits NEED NAME...: are NEED seconds left? Else every NAME fails as skipped.
fits() {
    local need=$1 n; shift
    [ $(( LIMIT_S - $(elapsed) )) -ge "$need" ] && return 0
    for n in "$@"; do fail "$n" "skipped: $(elapsed)s used of the ${LIMIT_S}s limit"; done
    return 1
}
fail_all() { local why=$1 n; shift; for n in "$@"; do fail "$n" "$why"; done; }   # fail_all WHY NAME...
kv() { grep -o "$2=[0-9.]*" "$1" 2>/dev/null | head -1 | cut -d= -f2; }     # kv FILE KEY: a number train printed

PY=$(command -v python3 || true)
# py_checks CMD ARGS...: tests/gpu/check_trace.py's PASS/FAIL lines become checks; its failure to run is one too.
py_checks() {
    local res rc line seen=0
    if [ -z "$PY" ]; then fail "checker_$1" "python3 not found: the trace checks cannot run"; return; fi
    res=$("$PY" "$CHECKS" "$@" 2>&1); rc=$?
    while IFS= read -r line; do
        case $line in
        "PASS "*) line=${line#PASS }; pass "${line%% *}" "${line#* }"; seen=1 ;;
        "FAIL "*) line=${line#FAIL }; fail "${line%% *}" "${line#* }"; seen=1 ;;
        ?*) info "$line" ;;
        esac
    done <<<"$res"
    [ $rc -eq 0 ] && [ $seen -eq 1 ] || fail "checker_$1" "check_trace.py $1 exited $rc: $(echo "$res" | tail -1)"
}
q() {   # q TRACE SQL -> first column of the first row ("" when none or on error)
    [ -n "$PY" ] || return 0
    "$PY" - "$1" "$2" <<'EOF' 2>/dev/null
import sqlite3, sys
try:
    r = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True).execute(sys.argv[2]).fetchone()
    print("" if r is None or r[0] is None else r[0])
except Exception:
    print("")
EOF
}

main() {
info "perfscope GPU check: build $BUILD, output $OUT, work files $WORK, limit ${LIMIT_S}s${DRY_RUN:+, DRY_RUN}"
info "host: $(uname -srm); $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME"); $(nproc 2>/dev/null) cores"
[ -f "$BUILD/MANIFEST.txt" ] && info "carried build: $(head -1 "$BUILD/MANIFEST.txt")"

# --- 1. the driver: CUDA 13 needs R580 or newer; an older one makes train fall back to its C backend ---
SMI=$(command -v nvidia-smi || true)
if [ -n "$SMI" ]; then
    info "gpu: $(timeout 20 "$SMI" --query-gpu=name,driver_version,memory.total,uuid,pci.bus_id --format=csv,noheader 2>&1 | head -2 | tr '\n' ';')"
    drv=$(timeout 20 "$SMI" --query-gpu=driver_version --format=csv,noheader 2>&1 | head -1 | tr -d ' ')
    major=${drv%%.*}
    if ! [ "$major" -eq "$major" ] 2>/dev/null; then fail "driver_version" "nvidia-smi gave no driver version: $drv"
    elif [ "$major" -ge 580 ]; then pass "driver_version" "$drv (CUDA 13 needs R580+)"
    else fail "driver_version" "$drv: CUDA 13 needs R580+ (or the cuda-compat package's 580+ libcuda): train will run its C backend and CUPTI cannot attach"; fi
else
    fail "driver_version" "nvidia-smi not found: no NVIDIA driver on this host?"
fi

# --- 2. the carried binaries, and what they cannot find on this host ---
for b in "$PS" "$PROBE" "$TRAIN" "$KERNELS"; do
    if [ ! -e "$b" ]; then
        fail "ldd_$(basename "$b")" "$b missing (make the carried build with tests/gpu/pack.sh; cuda_kernels needs nvcc)"
        continue
    fi
    missing=$(ldd "$b" 2>&1 | grep -E "not found|No such" || true)
    if [ -n "$missing" ]; then fail "ldd_$(basename "$b")" "unresolved: $(echo "$missing" | tr -s ' \t\n' ' ')"
    else pass "ldd_$(basename "$b")" "$(ldd "$b" 2>/dev/null | awk '/=>/{print $1}' | tr '\n' ' ')"; fi
done
[ -n "$PY" ] || fail "python3" "python3 not found: the trace checks cannot read the traces"

# --- 3. NVML: top's snapshot beside nvidia-smi (name, memory, UUID, PCI bus id; utilisation and power in range) ---
if [ -x "$PS" ] && [ -n "$SMI" ]; then
    timeout -k 5 "$(tmo 30)" "$PS" top --iterations 3 -d 0.5 --snapshot json >"$WORK/top.json" 2>"$WORK/top.err"
    timeout 20 "$SMI" --query-gpu=name,memory.total,uuid,pci.bus_id --format=csv,noheader,nounits >"$WORK/smi.csv" 2>&1
    py_checks nvml "$WORK/top.json" "$WORK/smi.csv"
else
    fail "top_nvml_matches_nvidia_smi" "needs perfscope and nvidia-smi"
fi

# --- 4. libcupti: the probe uses a libcupti.so.13 the program has loaded already (PyTorch's wheel: never a second
# CUPTI in one process), else PERFSCOPE_CUPTI_PATH, else libcupti.so.13 on the linker path / in the toolkit. train and
# cuda_kernels are C programs that load none, so the one found here is used; cuptiMessage names it. ---
if [ -z "${PERFSCOPE_CUPTI_PATH:-}" ]; then
    cand=$(ldconfig -p 2>/dev/null | awk '/libcupti\.so\.13 /{print $NF; exit}')
    for d in /usr/local/cuda/extras/CUPTI/lib64 /usr/local/cuda/lib64 /usr/local/cuda-13*/extras/CUPTI/lib64 \
             /usr/local/cuda-13*/lib64 /usr/lib/x86_64-linux-gnu; do
        [ -z "$cand" ] && [ -e "$d/libcupti.so.13" ] && cand="$d/libcupti.so.13"
    done
    if [ -z "$cand" ] && [ -n "$PY" ]; then
        for sp in $("$PY" -c 'import site; print(" ".join(site.getsitepackages() + [site.getusersitepackages()]))' 2>/dev/null); do
            [ -z "$cand" ] && cand=$(find "$sp/nvidia" -maxdepth 4 -name 'libcupti.so.13*' 2>/dev/null | head -1)
        done
    fi
    if [ -n "$cand" ]; then export PERFSCOPE_CUPTI_PATH=$cand; pass "libcupti_found" "$cand"
    else fail "libcupti_found" "no libcupti.so.13 in ldconfig, /usr/local/cuda*, or python site-packages/nvidia (set PERFSCOPE_CUPTI_PATH)"; fi
else
    pass "libcupti_found" "$PERFSCOPE_CUPTI_PATH (from the environment)"
fi
export PERFSCOPE_LOG=$WORK/probe.log

# --- 5. a small CUDA program with known work (tests/cupti/cuda_kernels.cu): every row checked ---
if [ -x "$KERNELS" ] && [ -x "$PS" ] && fits 20 cupti_known_work_rows; then
    res=$(timeout -k 5 "$(tmo 60)" sh "$HERE/../cupti/cuda_program_test.sh" gpu "$PS" "$KERNELS" 2>&1)
    case $? in
    0) pass "cupti_known_work_rows" "10 kernels, H2D/D2H/memset 1 MiB, sync, API joins, inside the NVTX range" ;;
    77) fail "cupti_known_work_rows" "the test program found no CUDA device" ;;
    *) fail "cupti_known_work_rows" "$(echo "$res" | tail -2 | tr '\n' ' ')" ;;
    esac
elif [ ! -x "$KERNELS" ] || [ ! -x "$PS" ]; then
    fail "cupti_known_work_rows" "$KERNELS or $PS missing (cuda_kernels is built with nvcc by the cupti tests)"
fi

# --- 6. overhead of record on balanced (first, so the time budget never skips it) ---
# Runs of about OVH_RUN_S seconds each, bare and recorded, interleaved, median of what fits in BUDGET_S; the fixed
# cost of recording (start-up, CUPTI attach, exit flush, trace finish) is measured apart on 1-step runs and taken
# out of the recorded runs' time: the verdict is on the steady-state ratio.
bare=(); rec=(); fb=(); fr=(); kern=""; steps=""; backend=""
if [ -x "$TRAIN" ] && [ -x "$PS" ]; then
    # Untimed warm-up: makes the data set, fills the page cache, gives the step time and the backend.
    timeout -k 5 "$(tmo 60)" "$TRAIN" --scenario balanced --steps 20 >"$WORK/warmup.out" 2>&1
    backend=$(grep '^backend=' "$WORK/warmup.out" | head -1)
    # train prints phase_ms step= as the total over all its steps (workloads/train.c): per step = total / steps
    step_ms=$(awk '/^phase_ms step=/{sub(/step=/, "", $2); t = $2} /^steps=/{sub(/steps=/, "", $1); n = $1}
                  END{if (t != "" && n > 0) printf "%.4f", t / n}' "$WORK/warmup.out")
    [ -n "$step_ms" ] && steps=$(awk -v s="$step_ms" -v t="$OVH_RUN_S" 'BEGIN{n = int(t * 1000 / (s > 0.01 ? s : 0.01));
        if (n < 20) n = 20; if (n > 200000) n = 200000; print n}')
    info "balanced: ${step_ms:-?} ms per step (warm-up of 20 steps) -> $steps steps for ~${OVH_RUN_S}s runs"
fi
case $backend in
backend=cuda*) pass "train_backend" "$backend" ;;
*) fail "train_backend" "train did not run on the GPU: ${backend:-no output} ($(tail -1 "$WORK/warmup.out" 2>/dev/null))" ;;
esac
GPU_RUNS=0; case $backend in backend=cuda*) GPU_RUNS=1 ;; esac
[ -n "${DRY_RUN:-}" ] && GPU_RUNS=1
if [ -n "$steps" ] && [ $GPU_RUNS -eq 1 ]; then
    for i in 1 2 3; do
        [ "$(tmo 30)" -ge 10 ] || break
        t1=$(now_ns); timeout -k 5 "$(tmo 30)" "$TRAIN" --scenario balanced --steps 1 >/dev/null 2>&1 || break; t2=$(now_ns)
        fb+=($(( t2 - t1 )))
        t1=$(now_ns); timeout -k 5 "$(tmo 30)" "$PS" record -f -o "$WORK/fixed.$i.sqlite" -- "$TRAIN" --scenario balanced --steps 1 >/dev/null 2>&1 || break; t2=$(now_ns)
        fr+=($(( t2 - t1 )))
    done
    for i in 1 2 3 4 5; do
        [ $(( $(elapsed) + 3 * OVH_RUN_S )) -ge "$BUDGET_S" ] && break
        t1=$(now_ns); timeout -k 5 "$(tmo 90)" "$TRAIN" --scenario balanced --steps "$steps" >"$WORK/bare.$i.out" 2>&1 || break; t2=$(now_ns)
        bare+=($(( t2 - t1 )))
        t1=$(now_ns); timeout -k 5 "$(tmo 120)" "$PS" record -f -o "$WORK/ovh.$i.sqlite" -- "$TRAIN" --scenario balanced --steps "$steps" >"$WORK/ovh.$i.out" 2>&1 || break; t2=$(now_ns)
        rec+=($(( t2 - t1 )))
        kern=$(kv "$WORK/ovh.$i.out" kernels_launched)
        [ "$i" -gt 1 ] && rm -f "$WORK/ovh.$i.sqlite"
    done
fi
csv() { local IFS=,; echo "$*"; }
py_checks overhead "${steps:-?}" "${kern:-0}" "$BUDGET_S" "bare=$(csv "${bare[@]}")" "record=$(csv "${rec[@]}")" \
    "fixed_bare=$(csv "${fb[@]}")" "fixed_record=$(csv "${fr[@]}")"
[ -e "$WORK/ovh.1.sqlite" ] && info "mean cudaLaunchKernel duration under record: $(q "$WORK/ovh.1.sqlite" "SELECT avg(\"end\" - start) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId WHERE s.value LIKE 'cudaLaunchKernel%'") ns"

# --- 7. each scenario under record: rows = what train launched, a sound timeline, the verdict ---
declare -A WANT=([data-bound]=data-loading [memcpy-bound]=memcpy [kernel-bound]=kernel [sync-bound]=sync)
SCENARIOS="data-bound memcpy-bound kernel-bound sync-bound balanced"
TRACES=(); LONGEST=""; LONGEST_S=-1
for sc in $SCENARIOS; do
    tr=$WORK/$sc.sqlite; log=$WORK/$sc.out
    deps="cupti_active_$sc kernels_$sc h2d_bytes_$sc d2h_bytes_$sc gpu_times_$sc stream_order_$sc"
    [ -n "${WANT[$sc]:-}" ] && deps="$deps verdict_$sc"
    [ "$sc" = kernel-bound ] && deps="$deps gpu_device_rows_$sc nvml_samples_join_gpu_$sc nvml_process_sm_util_$sc"
    # shellcheck disable=SC2086
    if ! [ -x "$PS" ] || ! [ -x "$TRAIN" ]; then fail_all "perfscope or train missing" "record_$sc" $deps; continue; fi
    # shellcheck disable=SC2086
    if [ $GPU_RUNS -eq 0 ]; then fail_all "not run: train has no GPU (DRY_RUN=1 runs it anyway)" "record_$sc" $deps; continue; fi
    # shellcheck disable=SC2086
    fits 20 "record_$sc" $deps || continue
    t1=$(now_ns)
    # shellcheck disable=SC2086
    timeout -k 5 "$(tmo 90)" "$PS" record -f -o "$tr" -- "$TRAIN" --scenario "$sc" ${SCENARIO_STEPS:+--steps "$SCENARIO_STEPS"} >"$log" 2>&1
    rc=$?; dur_s=$(( ($(now_ns) - t1) / 1000000000 ))
    # shellcheck disable=SC2086
    if [ $rc -ne 0 ]; then fail_all "record exited $rc after ${dur_s}s: $(tail -3 "$log" | tr '\n' ' ')" "record_$sc" $deps; continue; fi
    pass "record_$sc" "${dur_s}s, $(grep '^backend=' "$log" | head -1)"
    TRACES+=("$tr")
    [ "$dur_s" -gt "$LONGEST_S" ] && { LONGEST=$sc; LONGEST_S=$dur_s; }
    state=$(q "$tr" "SELECT group_concat(DISTINCT cuptiState) FROM PERFSCOPE_PROCESS_INFO WHERE cudaInjected = 1")
    msg=$(q "$tr" "SELECT cuptiMessage FROM PERFSCOPE_PROCESS_INFO WHERE cudaInjected = 1 LIMIT 1")
    if [ "$state" = "2" ]; then pass "cupti_active_$sc" "$msg"; else fail "cupti_active_$sc" "cuptiState=${state:-none}: ${msg:-no process called CUDA}"; fi
    py_checks rows "$tr" "$sc" "$(kv "$log" kernels_launched)" "$(kv "$log" h2d_bytes)" "$(kv "$log" d2h_bytes)"
    py_checks timeline "$tr" "$sc" --launch-order
    [ "$sc" = kernel-bound ] && py_checks devices "$tr" "$sc"
    if [ -n "${WANT[$sc]:-}" ]; then
        timeout -k 5 "$(tmo 30)" "$PS" report --format json "$tr" >"$WORK/$sc.report.json" 2>"$WORK/$sc.report.err"
        py_checks verdict "$WORK/$sc.report.json" "$sc" "${WANT[$sc]}"
    fi
done

# --- 8. PyTorch through perfscope's Python hook (workloads/pytorch/train_loader.py on the GPU): num_workers=0 with a
# heavy transform is data-loading bound; 8 workers with pinned memory is not (recorded with --python-hooks=modules:
# forward ranges too). Steps, DataLoader fetches, H2D copies in their copy_to_device ranges, kernels in their ops. ---
torch_info=$([ -n "$PY" ] && timeout "$(tmo 60)" "$PY" -c 'import torch; print(int(torch.cuda.is_available()), torch.__version__, torch.version.cuda)' 2>&1 | tail -1)
torch_cuda=${torch_info##* }; torch_major=${torch_cuda%%.*}
info "torch: ${torch_info:-not importable}"
# name:train_loader.py arguments:verdict wanted (both recorded with --python-hooks=modules: forward ranges too)
PYRUNS=("w0:--workers 0 --heavy-transform:data-loading" "w8:--workers 8 --pin-memory:not-data-loading")
if [ "${torch_info%% *}" = "1" ] && [ "$torch_major" = "13" ]; then
    pass "torch_cuda" "torch $torch_info"
elif [ "${torch_info%% *}" = "1" ]; then
    fail "torch_cuda" "torch $torch_info: a CUDA $torch_major build; perfscope's GPU capture needs CUDA 13 (checked below: the trace must say so)"
else
    fail "torch_cuda" "python3 cannot import torch with CUDA: ${torch_info:-no python3}"
fi
for run in "${PYRUNS[@]}"; do
    name=${run%%:*}; rest=${run#*:}; args=${rest%%:*}; want=${rest#*:}
    tr=$WORK/pytorch_$name.sqlite; log=$WORK/pytorch_$name.out
    deps="pytorch_${name}_steps_verdict pytorch_${name}_dataloader pytorch_${name}_h2d_copies pytorch_${name}_kernels_in_ops
          pytorch_${name}_memory_rows pytorch_${name}_torch_memory_marks pytorch_${name}_memory_report"
    # shellcheck disable=SC2086
    if [ "${torch_info%% *}" != "1" ] || ! [ -x "$PS" ]; then fail_all "not run: no torch with CUDA" $deps; continue; fi
    # shellcheck disable=SC2086
    fits 40 $deps || continue
    # shellcheck disable=SC2086
    timeout -k 5 "$(tmo 120)" "$PS" record -f --python-hooks=modules -o "$tr" -- "$PY" "$HERE/../../workloads/pytorch/train_loader.py" $args --steps 30 --device cuda >"$log" 2>&1
    rc=$?
    # shellcheck disable=SC2086
    if [ $rc -ne 0 ]; then fail_all "record exited $rc: $(tail -3 "$log" | tr '\n' ' ')" $deps; continue; fi
    TRACES+=("$tr")
    timeout -k 5 "$(tmo 60)" "$PS" report --format json "$tr" >"$WORK/pytorch_$name.report.json" 2>"$WORK/pytorch_$name.report.err"
    if [ "$torch_major" = "12" ]; then py_checks cuda12 "$tr" "pytorch_$name"; fi
    py_checks pytorch "$tr" "$WORK/pytorch_$name.report.json" "$name" "$want" 29
    py_checks memory "$tr" "$WORK/pytorch_$name.report.json" "$name" 29
done
if [ -e "$WORK/pytorch_w8.sqlite" ]; then
    py_checks timeline "$WORK/pytorch_w8.sqlite" pytorch_w8
    pinned=$(q "$WORK/pytorch_w8.sqlite" "SELECT count(*) FROM NVTX_EVENTS WHERE text = 'copy_to_device' AND category = 4")
    if [ "${pinned:-0}" -gt 0 ]; then pass "pytorch_pinned_non_blocking_copies" "$pinned copy_to_device ranges from pinned memory, non_blocking"
    else fail "pytorch_pinned_non_blocking_copies" "no copy_to_device range with category 4 (pinned, non_blocking) in the --pin-memory run"; fi
else
    for c in gpu_times_pytorch_w8 stream_order_pytorch_w8 pytorch_pinned_non_blocking_copies; do fail "$c" "no PyTorch trace"; done
fi

# --- 8b. --python-hooks=shapes: one range per ATen op with its inputs' sizes, dtypes, strides and scalars
# (python/perfscope_hook/op_shapes.py, "aten::addmm, dims = [...], types = [...], ..."), linked by correlation to
# the kernels each launched: the report's operator model has GEMM rows with kernel time and TFLOPS/s ---
tr=$WORK/pytorch_shapes.sqlite
if [ "${torch_info%% *}" != "1" ] || ! [ -x "$PS" ]; then
    fail "pytorch_op_shapes_model" "not run: no torch with CUDA"
elif fits 40 pytorch_op_shapes_model; then
    timeout -k 5 "$(tmo 90)" "$PS" record -f --python-hooks=shapes -o "$tr" -- "$PY" "$HERE/../../workloads/pytorch/train_loader.py" --workers 0 --steps 6 --device cuda >"$WORK/pytorch_shapes.out" 2>&1
    rc=$?
    n=$(q "$tr" "SELECT count(*) FROM NVTX_EVENTS WHERE text LIKE 'aten::%, dims = [%'")
    timeout -k 5 "$(tmo 60)" "$PS" report --format json "$tr" >"$WORK/pytorch_shapes.report.json" 2>"$WORK/pytorch_shapes.report.err"
    fig=$("$PY" -c 'import json, sys
r = json.load(open(sys.argv[1]))["op_perf"] or {"rows": []}
g = [x for x in r["rows"] if x["category"] == "GEMM" and (x["kernel_time_ns_total"] or 0) > 0]
print(len(g), "%.3f" % max([x["tflops_s_mean"] or 0 for x in g] + [0]), r.get("no_gpu_work"))' "$WORK/pytorch_shapes.report.json" 2>/dev/null)
    if [ $rc -eq 0 ] && [ "${n:-0}" -gt 0 ] && [ "${fig%% *}" -gt 0 ] 2>/dev/null; then
        pass "pytorch_op_shapes_model" "$n op ranges; GEMM groups with kernel time, best TFLOPS/s, no_gpu_work: $fig"
    else fail "pytorch_op_shapes_model" "record exited $rc, ${n:-0} op ranges, GEMM rows: ${fig:-none}: $(tail -2 "$WORK/pytorch_shapes.report.err" "$WORK/pytorch_shapes.out" 2>/dev/null | tr '\n' ' ')"; fi
fi

# --- 9. H2D bandwidth of the pinned copies of 1 MiB or more (kernel-bound's batches: 2 MiB) ---
if [ ${#TRACES[@]} -gt 0 ]; then py_checks bandwidth "${TRACES[@]}"
else fail "h2d_pinned_bandwidth" "no trace was recorded"; fi

# --- 10. records lost on the longest run (goal 0), and record's NVML samples ---
if [ -n "$LONGEST" ]; then
    tr=$WORK/$LONGEST.sqlite
    gd=$(q "$tr" "SELECT value FROM PERFSCOPE_META WHERE name = 'gpu_dropped_records'")
    rd=$(q "$tr" "SELECT coalesce(sum(droppedRecords), 0) FROM PERFSCOPE_PROCESS_INFO")
    nt=$(q "$tr" "SELECT value FROM PERFSCOPE_META WHERE name = 'gpu_records_without_timestamps'")
    fig="gpu=${gd:-none} ring=${rd:-none} without_timestamps=${nt:-none} (run: $LONGEST, ${LONGEST_S}s)"
    if [ "${gd:-x}" = "0" ] && [ "${rd:-x}" = "0" ]; then pass "dropped_records_longest_run" "$fig"
    else fail "dropped_records_longest_run" "$fig"; fi
else
    fail "dropped_records_longest_run" "no scenario was recorded"
fi
if [ -e "$WORK/kernel-bound.sqlite" ]; then
    tr=$WORK/kernel-bound.sqlite
    gs=$(q "$tr" "SELECT value FROM PERFSCOPE_META WHERE name = 'gpu_samples'")
    gn=$(q "$tr" "SELECT count(*) FROM PERFSCOPE_GPU_SAMPLES WHERE utilGpuPercent IS NOT NULL")
    gmax=$(q "$tr" "SELECT max(utilGpuPercent) FROM PERFSCOPE_GPU_SAMPLES")
    if [ "$gs" = nvml ] && [ "${gn:-0}" -gt 0 ]; then pass "record_gpu_samples" "$gn samples, max utilisation ${gmax}% (kernel-bound)"
    else fail "record_gpu_samples" "gpu_samples='$gs', ${gn:-0} rows with utilisation"; fi
else
    fail "record_gpu_samples" "no kernel-bound trace was recorded"
fi
info "probe log: $( { wc -l <"$PERFSCOPE_LOG"; } 2>/dev/null || echo 0) lines; total $(elapsed)s"
}

# What goes back: checks.json, reports.json, traces.tar.gz (when it fits in 16 MiB), beside run.log.
collect() {
    [ -n "$PY" ] && "$PY" - "$WORK" "$OUT" <<'EOF'
import glob, json, os, sys
work, out = sys.argv[1:3]
checks = []
for line in open(os.path.join(work, "checks.tsv")) if os.path.exists(os.path.join(work, "checks.tsv")) else []:
    verdict, name, figure = (line.rstrip("\n").split("\t") + ["", ""])[:3]
    checks.append({"name": name, "passed": verdict == "PASS", "figure": figure})
json.dump({"passed": sum(c["passed"] for c in checks), "failed": sum(not c["passed"] for c in checks),
           "checks": checks}, open(os.path.join(out, "checks.json"), "w"), indent=1)
reports = {}
for path in sorted(glob.glob(os.path.join(work, "*.report.json"))):
    try:
        reports[os.path.basename(path)[:-len(".report.json")]] = json.load(open(path))
    except Exception as e:
        reports[os.path.basename(path)] = {"unreadable": repr(e)}
json.dump(reports, open(os.path.join(out, "reports.json"), "w"))
EOF
    local files=() f
    for f in kernel-bound.sqlite pytorch_w8.sqlite probe.log top.json smi.csv '*.out' '*.err'; do
        # shellcheck disable=SC2086
        for g in $(cd "$WORK" && ls -d $f 2>/dev/null); do files+=("$g"); done
    done
    [ ${#files[@]} -gt 0 ] || return 0
    tar -czf "$WORK/traces.tar.gz" -C "$WORK" "${files[@]}" 2>/dev/null
    if [ "$(stat -c %s "$WORK/traces.tar.gz" 2>/dev/null || echo 0)" -gt $((15 << 20)) ]; then    # without the traces
        tar -czf "$WORK/traces.tar.gz" -C "$WORK" $(printf '%s\n' "${files[@]}" | grep -v '\.sqlite$') 2>/dev/null
    fi
    cp "$WORK/traces.tar.gz" "$OUT/" 2>/dev/null
}

main 2>&1 | tee "$OUT/run.log"
NPASS=$(grep -c '^PASS' "$WORK/checks.tsv" 2>/dev/null); NFAIL=$(grep -c '^FAIL' "$WORK/checks.tsv" 2>/dev/null)
collect >>"$OUT/run.log" 2>&1
info "work files (traces, logs) in $WORK" | tee -a "$OUT/run.log"
echo "${NPASS:-0} passed, ${NFAIL:-0} failed" | tee -a "$OUT/run.log"
NFAIL=${NFAIL:-0}
exit $(( NFAIL > 100 ? 100 : NFAIL ))
