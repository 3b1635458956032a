#!/bin/bash
# bulk-space.sh SHELF DB: the browser on DB (a 1,000,000-item store from make-copy-source.sh; it is changed), in tmux:
# M (mark all), then Space (mark them done) and u (undo), each timed from the key to its outcome line, with the
# browser process's CPU seconds for it, and the process's peak RSS (VmHWM) at the end. Run it on a copy.
# space.sh SHELF DB: M then Space in the browser on DB; times Space -> the outcome line, then u -> its outcome; peak RSS.
SHELF=$1; DB=$2; S=bulkm$$
tmux kill-session -t $S 2>/dev/null
tmux new-session -d -s $S -x 120 -y 40 "$SHELF browse --db $DB; sleep 30"
wait_for() { local pat=$1 t0=$(date +%s.%N); while ! tmux capture-pane -p -t $S | grep -q -- "$pat"; do sleep 0.05; if (( $(echo "$(date +%s.%N) - $t0 > 600" | bc) )); then echo "timeout waiting for $pat"; tmux capture-pane -p -t $S | tail -3; return 1; fi; done; echo "$(echo "$(date +%s.%N) - $t0" | bc)"; }
wait_for "Updated" > /dev/null
PID=$(pgrep -f "^$SHELF browse --db $DB" | head -1)
cpu() { awk '{printf "%.2f", ($14+$15)/100}' /proc/$PID/stat; }
t=$(date +%s.%N); tmux send-keys -t $S M; wait_for "marked" >/dev/null; echo "M: $(echo "$(date +%s.%N) - $t" | bc) s"
tmux capture-pane -p -t $S | tail -2
c=$(cpu); t=$(date +%s.%N); tmux send-keys -t $S ' '; wait_for "Marked\|marked .* done\|done\b.*items" >/dev/null
sleep 0.2; while tmux capture-pane -p -t $S | grep -q "changing\|Esc cancels"; do sleep 0.05; done
echo "Space: $(echo "$(date +%s.%N) - $t" | bc) s, CPU $(echo "$(cpu) - $c" | bc) s"; tmux capture-pane -p -t $S | tail -2
c=$(cpu); t=$(date +%s.%N); tmux send-keys -t $S u; sleep 0.3; while tmux capture-pane -p -t $S | grep -q "undoing\|Esc cancels\|changing"; do sleep 0.05; done
echo "u: $(echo "$(date +%s.%N) - $t" | bc) s, CPU $(echo "$(cpu) - $c" | bc) s"; tmux capture-pane -p -t $S | tail -2
grep VmHWM /proc/$PID/status
tmux send-keys -t $S q; sleep 1; tmux kill-session -t $S 2>/dev/null
