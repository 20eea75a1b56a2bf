package org.qplab.controller.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class CycleHistogramTests {

    @Test
    void everyTimeLiesInsideItsBinAndBinsAreAtMostAnOctaveOverBinsWide() {
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 200_000; i++) {
            long ns = i < 2000 ? i : (long) Math.exp(random.nextDouble() * Math.log(1e12));
            for (int k = 1; k <= 128; k *= 2) {
                long bin = CycleHistogram.bin(ns, k);
                long low = CycleHistogram.lowNs(bin, k);
                long high = CycleHistogram.highNs(bin, k);
                assertThat(ns).as("%d ns, %d bins per octave", ns, k).isGreaterThanOrEqualTo(low).isLessThan(high);
                assertThat(high - low).isLessThanOrEqualTo(Math.max(1, low / k));
            }
        }
    }

    @Test
    void withAHundredTwentyEightBinsPerOctaveItIsTheStoredBucketOfV3() {
        // qplab_cycle_bucket: exact below 256 ns, then e = floor(log2 ns) - 7, bucket = e * 128 + (ns >> e)
        assertThat(CycleHistogram.bin(255, 128)).isEqualTo(255);
        assertThat(CycleHistogram.bin(256, 128)).isEqualTo(128 + 128);
        assertThat(CycleHistogram.bin(100_000, 128)).isEqualTo(9 * 128 + (100_000 >> 9));
    }

    @Test
    void mergingStoredBucketsKeepsEveryCountInTheBinThatHoldsTheBucket() {
        SplittableRandom random = new SplittableRandom(11);
        Map<Long, Long> stored = new TreeMap<>();
        long total = 0;
        for (int i = 0; i < 50_000; i++) {
            long ns = 50_000 + (long) (random.nextDouble() * 400_000);
            stored.merge(CycleHistogram.bin(ns, 128), 1L, Long::sum);
            total++;
        }
        CycleHistogram histogram = CycleHistogram.of(1, stored, 8);

        assertThat(histogram.cycles()).isEqualTo(total);
        assertThat(histogram.bins().stream().mapToLong(CycleHistogram.Bin::count).sum()).isEqualTo(total);
        for (CycleHistogram.Bin bin : histogram.bins()) {
            long expected = stored.entrySet().stream()
                    .filter(e -> CycleHistogram.lowNs(e.getKey(), 128) >= bin.lowNs()
                            && CycleHistogram.highNs(e.getKey(), 128) <= bin.highNs())
                    .mapToLong(Map.Entry::getValue).sum();
            assertThat(bin.count()).as("bin %d..%d ns", bin.lowNs(), bin.highNs()).isEqualTo(expected);
        }
        assertThat(histogram.bins()).isSortedAccordingTo((a, b) -> Long.compare(a.lowNs(), b.lowNs()));
    }
}
