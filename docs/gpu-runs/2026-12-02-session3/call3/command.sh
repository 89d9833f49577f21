export OUT; P=tools/gpu/process_effect_probe.py; R=kernels/triton/rmsnorm_bench.py; M=kernels/triton/matmul_bench.py
probe() { n=$1; t=$2; shift 2; if [ $SECONDS -gt 360 ]; then echo "$n skipped" >> $OUT/probe.log; return; fi; s=$SECONDS; timeout $t python3 $P "$@" --out $OUT/$n.jsonl >> $OUT/$n.log 2>&1; echo "$n rc $? $((SECONDS-s))s" >> $OUT/probe.log; }
probe profile-matmul 45 $M --mode profile --shapes mm_1k,mm_8k
probe profile-rms 35 $R --mode profile --shapes rms_1k_1k,rms_16k_4k
for v in as-shipped replace-ring read-flush; do probe inproc-rms-$v 45 $R --mode in-process --variant $v --shapes rms_1k_1k,rms_4k_4k --reps 4; done
for v in as-shipped replace-ring read-flush; do probe procs-rms-$v 50 $R --mode processes --variant $v --shapes rms_1k_1k --pairs 3 --reps 2; done
for v in as-shipped replace-ring; do probe procs-mm-$v 50 $M --mode processes --variant $v --shapes mm_1k --pairs 3 --reps 2; done
cd $OUT && cat *.jsonl > all.jsonl && tar czf logs.tgz *.log && rm -f profile-* inproc-* procs-* && ls; cat probe.log
