# bench/compare/report.sh — sourced by run.sh: report() writes results.md from what run.sh left in $WORK
# (aa.tsv, limits.tsv, ab.tsv, achieved.tsv, lat.json, times) and its variables.

# awk functions every table uses
REPORT_AWK='
function size(b) { return b >= 1048576 && b % 1048576 == 0 ? b / 1048576 " MiB" : b >= 1024 && b % 1024 == 0 ? b / 1024 " KiB" : b " B" }
function point(s, t, q) { return size(s) ", " t " thr, " q " conn" }
function num(x, f) { return x == "" ? "–" : sprintf(f, x) }
function p(x) { return x == "" ? "–" : x < 0.0001 ? sprintf("%.1e", x) : sprintf("%.4f", x) }
function ci(lo, hi) { return lo == "" || hi == "" ? "–" : sprintf("%+.1f … %+.1f", lo, hi) }
function flagged(v) { return v == "regression" || v == "improvement" }
function judged(v) { return flagged(v) || v == "no change" }
function median(a, n,   i, j, x) { # sorts a[1..n]
    for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
    return n == 0 ? "" : n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
# P(T <= t) for t >= 0 and an integer df (Abramowitz & Stegun 26.7.3-4), and its inverse by bisection
function tcdf(t, nu,   th, s, c, a, term, sum, k) {
    th = atan2(t, sqrt(nu)); s = sin(th); c = cos(th)
    if (nu % 2 == 0) {
        term = 1; a = 1
        for (k = 2; k <= nu - 2; k += 2) { term *= c * c * (k - 1) / k; a += term }
        a *= s
    } else {
        a = th
        if (nu > 1) { term = c; sum = c; for (k = 3; k <= nu - 2; k += 2) { term *= c * c * (k - 1) / k; sum += term }; a += s * sum }
        a *= 2 / 3.141592653589793
    }
    return (1 + a) / 2
}
function tq(q, nu,   lo, hi, mid, i) {
    lo = 0; hi = 1000
    for (i = 0; i < 100; i++) { mid = (lo + hi) / 2; if (tcdf(mid, nu) < q) lo = mid; else hi = mid }
    return mid
}
'

conf() { awk -v a="$ALPHA" 'BEGIN { printf "%g", (1 - a) * 100 }'; }

aa_section() {
    echo "## A/A: the same matrix twice, PAIRS = $PAIRS fresh pairs (the control)"
    echo
    echo "The A/A section is this bench's control: the same tool runs the same matrix twice, so every"
    echo "regression or improvement it reports is a false alarm, what the machine's noise alone produces."
    echo "Matrix: msg_size [$SIZES] × threads [$THREADS] × qps_per_thread [$QPS] = $npoints points, $REPEATS repeats"
    echo "each in random order, tcp on loopback, ${DURATION_MS} ms per run after $WARMUP_CYCLES warm-up cycles per thread."
    echo "Each pair is two experiments submitted one after the other and compared with"
    echo "\`GET /api/compare?baseline=A&candidate=B&alpha=$ALPHA&threshold=$THRESHOLD\`. CV: the run-to-run coefficient of"
    echo "variation of the verdict's metric on each side (\`judgments[].baseline.cvPercent\`, \`candidate.cvPercent\`)."
    echo
    echo "| pair | points paired | judged | regression | improvement | no change | other (inconclusive, untested) |"
    echo "|---:|---:|---:|---:|---:|---:|---:|"
    awk -F'\t' "$REPORT_AWK"'
        { n[$1]++; j[$1] += judged($6); r[$1] += $6 == "regression"; i[$1] += $6 == "improvement"; c[$1] += $6 == "no change"
          N++; J += judged($6); R += $6 == "regression"; I += $6 == "improvement"; C += $6 == "no change" }
        END {
            for (k = 1; k <= pairs; k++) printf "| %d | %d | %d | %d | %d | %d | %d |\n", k, n[k], j[k], r[k], i[k], c[k], n[k] - j[k]
            printf "| **all** | %d | %d | **%d** | **%d** | %d | %d |\n\n", N, J, R, I, C, N - J
            printf "**False alarms: %d of %d points judged (%.1f %%)**; goal ≤ 1 %%: %s.\n", R + I, J,
                J ? 100 * (R + I) / J : 0, J && (R + I) <= 0.01 * J ? "met" : "NOT met"
        }' pairs="$PAIRS" "$WORK/aa.tsv"
    echo
    echo "Every point of every pair (change: geometric mean B / A − 1 of the verdict's metric; CI at $(conf) %):"
    echo
    echo "| point | pair | metric | verdict | change [%] | CI [%] | p | method | CV A [%] | CV B [%] |"
    echo "|---|---:|---|---|---:|---|---:|---|---:|---:|"
    sort -t$'\t' -k2,2n -k3,3n -k4,4n -k1,1n "$WORK/aa.tsv" | awk -F'\t' "$REPORT_AWK"'{
        v = flagged($6) ? "**" $6 "**" : $6
        m = $15 == "welch-log+drift" ? "+drift of " $16 " exp." : $15
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", point($2, $3, $4), $1, $5, v, num($7, "%+.1f"),
            ci($8, $9), p($10), m, num($11, "%.1f"), num($12, "%.1f") }'
    echo
    awk -F'\t' "$REPORT_AWK"'{ d = $15 == "welch-log+drift"; n[d]++; f[d] += flagged($6) }
        END { printf "By method: runs alone (welch-log, a fingerprint without 3 earlier experiments: the first pairs) %d of %d points flagged; with the drift of earlier experiments (welch-log+drift) %d of %d.\n",
                  f[0], n[0], f[1], n[1] }' "$WORK/aa.tsv"
}

# Per point, from every A experiment: the pooled sd of the log run values within each (s), and how far the
# experiments' mean logs drift apart beyond that (tau, method of moments, as compare estimates it):
# size threads qps s df runs tau experiments
pooled_s() {
    awk -F'\t' '
        function side(key, list,   v, k, m, s, x) {
            k = split(list, v, ","); if (k < 2) return
            for (x = 1; x <= k; x++) m += v[x]; m /= k
            for (x = 1; x <= k; x++) s += (v[x] - m) ^ 2
            ss[key] += s; df[key] += k - 1; runs[key] += k
            e = ++ne[key]; mean[key, e] = m; expl[key] += s / (k - 1) / k
        }
        { key = $2 "\t" $3 "\t" $4; side(key, $13); side(key, $14) }
        END { for (key in df) if (df[key]) {
                  k = ne[key]; mm = 0; vm = 0
                  for (e = 1; e <= k; e++) mm += mean[key, e]; mm /= k
                  for (e = 1; e <= k; e++) vm += (mean[key, e] - mm) ^ 2
                  tau2 = k > 1 ? vm / (k - 1) - expl[key] / k : 0; if (tau2 < 0) tau2 = 0
                  printf "%s\t%.6f\t%d\t%d\t%.6f\t%d\n", key, sqrt(ss[key] / df[key]), df[key], runs[key], sqrt(tau2), k } }' "$WORK/aa.tsv"
}

mde_section() {
    local nu=$((2 * (REPEATS - 1))) k=$((2 * PAIRS - 1))
    echo "## The smallest change flagged at 80 % power with $REPEATS repeats"
    echo
    echo "Per point, s = the pooled standard deviation of the log run values within each A experiment"
    echo "($PAIRS pairs × 2 experiments of $REPEATS runs), and τ = how far those experiments' mean logs drift apart beyond"
    echo "what s explains (the variance of the means less s²/n, as compare estimates it). Two-sided α = $ALPHA, n = $REPEATS"
    echo "a side. Within one pair's runs alone (Welch, df ≈ $nu): δ = (t(1 − α/2, $nu) + t(0.8, $nu)) · s · √(2/$REPEATS). With the"
    echo "drift of $k earlier experiments added (compare's welch-log+drift once a fingerprint has 3 or more): se² = 2s²/$REPEATS + 2τ²,"
    echo "Satterthwaite's df. Shown as the drop 1 − e^−δ in % (the rise e^δ − 1 is larger). The verdict also needs"
    echo "|change| > $THRESHOLD %, so nothing smaller than that is flagged."
    echo
    echo "| point | runs | s (log) | τ (log) | CV A/B sides, median (min–max) [%] | smallest drop flagged, runs alone [%] | smallest drop flagged, with drift [%] |"
    echo "|---|---:|---:|---:|---|---:|---:|"
    pooled_s >"$WORK/s.tsv"
    sort -t$'\t' -k2,2n -k3,3n -k4,4n "$WORK/aa.tsv" | awk -F'\t' -v n="$REPEATS" -v nu="$nu" -v kd="$k" -v alpha="$ALPHA" "$REPORT_AWK"'
        FILENAME == sfile { key = $1 SUBSEP $2 SUBSEP $3; sd[key] = $4; runs[key] = $6; tau[key] = $7; next }
        { key = $2 SUBSEP $3 SUBSEP $4
          if (!(key in seen)) { seen[key] = 1; keys[++nk] = key; label[key] = point($2, $3, $4) }
          if ($11 != "") cv[key, ++ncv[key]] = $11; if ($12 != "") cv[key, ++ncv[key]] = $12 }
        END {
            f = tq(1 - alpha / 2, nu) + tq(0.8, nu)
            for (i = 1; i <= nk; i++) {
                key = keys[i]; lo = ""; hi = ""; k = 0
                for (x = 1; x <= ncv[key]; x++) { c[++k] = cv[key, x]; if (lo == "" || c[k] < lo) lo = c[k]; if (hi == "" || c[k] > hi) hi = c[k] }
                if (!(key in sd)) { printf "| %s | – | – | – | – | – | – |\n", label[key]; continue }
                s = sd[key]; d = f * s * sqrt(2 / n)
                cw = s * s / n; cd = 2 * tau[key] ^ 2; se2 = 2 * cw + cd
                dfd = se2 ^ 2 / (2 * cw ^ 2 / (n - 1) + (cd > 0 ? cd ^ 2 / (kd - 1) : 0)); dfi = int(dfd); if (dfi < 1) dfi = 1
                dd = (tq(1 - alpha / 2, dfi) + tq(0.8, dfi)) * sqrt(se2)
                drop[++nd] = 100 * (1 - exp(-d)); dropd[nd] = 100 * (1 - exp(-dd))
                printf "| %s | %d | %.3f | %.3f | %s (%s–%s) | %.1f | %.1f |\n", label[key], runs[key], s, tau[key],
                    num(median(c, k), "%.1f"), num(lo, "%.1f"), num(hi, "%.1f"), drop[nd], dropd[nd]
            }
            for (i = 1; i <= nd; i++) { if (i == 1 || drop[i] < dl) dl = drop[i]; if (i == 1 || drop[i] > dh) dh = drop[i]
                                        if (i == 1 || dropd[i] < ddl) ddl = dropd[i]; if (i == 1 || dropd[i] > ddh) ddh = dropd[i] }
            printf "\nt(1 − α/2, %d) = %.3f, t(0.8, %d) = %.3f. ", nu, tq(1 - alpha / 2, nu), nu, tq(0.8, nu)
            if (nd) printf "**Over the %d points, 80 %% of the time: a drop of %.1f %% (median; %.1f–%.1f %%) from one pair'"'"'s runs alone; %.1f %% (%.1f–%.1f %%) once the drift between experiments is counted.**\n",
                nd, median(drop, nd), dl, dh, median(dropd, nd), ddl, ddh
            else print "No point had two runs or more a side: nothing to estimate."
        }' sfile="$WORK/s.tsv" "$WORK/s.tsv" -
}

ab_section() {
    local expected
    expected=$(awk -v s="$RATE_SHARE" 'BEGIN { printf "%g", (s - 1) * 100 }')
    echo "## A/B: the same points rate-limited to $(awk -v s="$RATE_SHARE" 'BEGIN { printf "%g", s * 100 }') % (power)"
    echo
    echo "B is the same matrix with \`rate_limit\` per point (cycles per second per thread; its points listed"
    echo "through one \`zips\` entry) = $RATE_SHARE × the point's free-running rate: summary.cycles / threads /"
    echo "(duration_ns / 1e9), the geometric mean over the repeats of the last A experiment, which B is compared with"
    echo "(\`&across=rate_limit\`) and which ran just before it. Injected change: $expected % of A's geometric mean (up to"
    echo "the machine's drift between the two experiments). \"B at limit\": B's cycles per thread per second ÷ its limit"
    echo "(100 %: the pacing held). Paced well below what the machine can do, B's runs scatter little, so Welch's df"
    echo "falls toward $((REPEATS - 1)) (A's runs alone) and the power rests on A's spread, and on how far A's experiments drift"
    echo "apart (τ, the table above: compare adds it, A's fingerprint having $((2 * PAIRS - 1)) earlier experiments): se² = s²/$REPEATS + 2τ²."
    echo "\"in reach\": (t(1 − α/2, df) + t(0.8, df)) · se < ln 2 with the point's s and τ (Satterthwaite's df): −50 % is"
    echo "within this machine's resolution there, found at 80 % power."
    echo
    echo "| point | free rate [cycles/s/thread] | rate_limit | B at limit [%] | metric | verdict | change [%] | CI [%] | p | method | CV A [%] | CV B [%] | s A/A (log) | in reach | CI ∋ $expected % |"
    echo "|---|---:|---:|---:|---|---|---:|---|---:|---|---:|---:|---:|---|---|"
    sort -t$'\t' -k2,2n -k3,3n -k4,4n "$WORK/ab.tsv" | awk -F'\t' -v exp_="$expected" -v n_="$REPEATS" -v alpha="$ALPHA" -v kd="$((2 * PAIRS - 1))" "$REPORT_AWK"'
        function reachable(s, t,   cw, cd, se2, df) {
            cw = s * s / n_; cd = 2 * t * t; se2 = cw + cd
            df = int(se2 ^ 2 / (cw ^ 2 / (n_ - 1) + (cd > 0 ? cd ^ 2 / (kd - 1) : 0))); if (df < 1) df = 1
            return (tq(1 - alpha / 2, df) + tq(0.8, df)) * sqrt(se2) < log(2)
        }
        FILENAME == lim { k = $1 SUBSEP $2 SUBSEP $3; free[k] = $4; limit[k] = $5; next }
        FILENAME == got { got_[$1 SUBSEP $2 SUBSEP $3] = $4; next }
        FILENAME == sfile { sd[$1 SUBSEP $2 SUBSEP $3] = $4; tau[$1 SUBSEP $2 SUBSEP $3] = $7; next }
        { k = $2 SUBSEP $3 SUBSEP $4; n++
          has = $8 != "" && $9 != "" && $8 <= exp_ && exp_ <= $9; reg = $6 == "regression"
          R += reg; H += has; B += reg && has
          inr = (k in sd) && reachable(sd[k], tau[k]); NR_ += inr; RR += inr && reg; BR += inr && reg && has
          at = (k in got_) && limit[k] ? sprintf("%.0f", 100 * got_[k] / limit[k]) : "–"
          m = $15 == "welch-log+drift" ? "+drift of " $16 " exp." : $15
          printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", point($2, $3, $4), num(free[k], "%.0f"),
              limit[k] == "" ? "–" : limit[k], at, $5, reg ? "**regression**" : $6, num($7, "%+.1f"), ci($8, $9), p($10), m,
              num($11, "%.1f"), num($12, "%.1f"), (k in sd) ? sprintf("%.3f", sd[k]) : "–", inr ? "yes" : "no", has ? "yes" : "**no**" }
        END {
            printf "\n**Regression: %d of %d points (%.0f %%); CI containing %s %%: %d; both: %d (%.0f %%)**; goal ≥ 95 %%: %s.\n",
                R, n, n ? 100 * R / n : 0, exp_, H, B, n ? 100 * B / n : 0, (n && B >= 0.95 * n ? "met" : "NOT met")
            printf "Where %s %% is within reach: %d points, %d flagged (%.0f %%), %d flagged with the CI containing it (%.0f %%).\n",
                exp_, NR_, RR, NR_ ? 100 * RR / NR_ : 0, BR, NR_ ? 100 * BR / NR_ : 0
        }' lim="$WORK/limits.tsv" got="$WORK/achieved.tsv" sfile="$WORK/s.tsv" "$WORK/limits.tsv" "$WORK/achieved.tsv" "$WORK/s.tsv" -
}

latency_section() {
    echo "## GET /api/compare latency"
    echo
    echo "Two experiments of $RUNS runs each, $CYCLES recorded cycles per run (tcp, 64 B, 1 thread, 2 connections),"
    echo "run through the real path: engine → agent → ingest of its intervals → each run's histogram. The compare"
    echo "endpoint pairs the $((2 * RUNS)) runs by parameters, judges the per-run values (Welch's t on their logs) and"
    echo "pools the stored histograms for the shape. $CALLS calls after 5 warm-up calls, curl time_total."
    echo
    echo "| runs | cycles stored | calls | p50 [ms] | p95 [ms] | max [ms] | goal p95 < 300 ms |"
    echo "|---:|---:|---:|---:|---:|---:|---|"
    echo "| $((RUNS * 2)) | $cycles | $CALLS | $p50 | $p95 | $max | $lat_goal |"
    echo
    jq -r '.points[0] // {} | [.metric, .changePercent, .ciLowPercent, .ciHighPercent, .pValue, .method, .verdict]
        | map(. // "") | @tsv' "$WORK/lat.json" | awk -F'\t' "$REPORT_AWK"'{
        printf "What it said about these two experiments (the same matrix back to back): %s changed by %s %% (CI %s %%), p = %s, method %s, verdict \"%s\".\n",
            $1 == "" ? "–" : $1, num($2, "%+.2f"), ci($3, $4), p($5), $6 == "" ? "–" : $6, $7 }'
}

report() {
    echo "# Compare: run-level verdicts on this machine, and what a call costs"
    echo
    echo "A controller (its embedded PostgreSQL) and one local agent; tcp on loopback. α = $ALPHA, threshold $THRESHOLD %:"
    echo "a verdict is regression or improvement only when p < α and |change| > $THRESHOLD %."
    echo
    aa_section
    echo
    mde_section
    echo
    ab_section
    echo
    latency_section
    echo
    [ "${FAILED_RUNS:-0}" = 0 ] || { echo "Runs that failed (left out of their points): $FAILED_RUNS."; echo; }
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); the bench took $elapsed min ($RUNS_DONE runs in $EXPS_DONE experiments)"
    echo "- machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), kernel $(uname -r)"
    echo "- git revision: $REV (at the start of the bench)"
    echo "- regenerate: \`$( [ "$QUICK" = 1 ] && printf 'QUICK=1 ')PAIRS=$PAIRS REPEATS=$REPEATS SIZES=\"$SIZES\" THREADS=\"$THREADS\" QPS=\"$QPS\" DURATION_MS=$DURATION_MS WARMUP_CYCLES=$WARMUP_CYCLES ALPHA=$ALPHA THRESHOLD=$THRESHOLD RATE_SHARE=$RATE_SHARE RUNS=$RUNS CYCLES=$CYCLES CALLS=$CALLS bench/compare/run.sh\`"
}
