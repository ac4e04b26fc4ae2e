# steal.sh, sourced by the timing scripts: the CPU seconds the hypervisor
# takes from this virtual machine (the steal column of /proc/stat, summed
# over the CPUs). The load average does not show them, and while they
# grow a run's wall time says more about the host than about the code
# (docs/BENCHMARKS.md, issue 18, "Stolen CPU time").
#
#	s0=$(stolen); some_command; echo "$(steal "$s0")"   # "1.3 s stolen"

# stolen prints the CPU seconds stolen since boot (0 without /proc/stat).
stolen() { awk -v hz="$(getconf CLK_TCK)" '$1 == "cpu" {printf "%.2f", $9 / hz; found = 1} END {if (!found) print 0}' /proc/stat 2>/dev/null || echo 0; }

# steal prints the seconds stolen since the stolen value $1.
steal() { awk -v a="$1" -v b="$(stolen)" 'BEGIN {printf "%.1f s stolen", b - a}'; }
