import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.*;

/**
 * The floor of any JVM parser (issue #15): a JVM that only counts the lines starting with "========= Invalid", as
 * `grep -c` does, over a memory-mapped file on N threads, eight bytes at a time. No records, no frames, no report.
 * bench/compare-parsers.sh compiles and times it beside grep and `gpu-sanitize analyze`.
 */
@SuppressWarnings("unchecked")
public class LineFloor {
    public static void main(String[] a) throws Exception {
        Path p = Path.of(a[0]);
        int threads = a.length > 1 ? Integer.parseInt(a[1]) : 2;
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
            long size = ch.size();
            long piece = (size + threads - 1) / threads;
            ExecutorService ex = Executors.newFixedThreadPool(threads);
            Future<Long>[] f = new Future[threads];
            for (int t = 0; t < threads; t++) {
                long from = t * piece, to = Math.min(size, from + piece);
                f[t] = ex.submit(() -> count(ch, from, to));
            }
            long n = 0;
            for (Future<Long> x : f) n += x.get();
            ex.shutdown();
            System.out.println(n);
        }
    }
    static final byte[] PAT = "========= Invalid".getBytes();
    static long count(FileChannel ch, long from, long to) throws IOException {
        long n = 0;
        long pos = from;
        while (pos < to) {
            long len = Math.min(1L << 30, to - pos);
            MappedByteBuffer b = ch.map(FileChannel.MapMode.READ_ONLY, pos, len);
            b.order(ByteOrder.LITTLE_ENDIAN);
            int lim = (int) len;
            int i = 0;
            // SWAR newline search 8 bytes at a time
            while (i + 8 <= lim) {
                long w = b.getLong(i);
                long x = w ^ 0x0a0a0a0a0a0a0a0aL;
                long m = (x - 0x0101010101010101L) & ~x & 0x8080808080808080L;
                while (m != 0) {
                    int k = i + (Long.numberOfTrailingZeros(m) >>> 3) + 1;
                    if (k + PAT.length <= lim && b.get(k) == '=' && b.get(k + 10) == 'I' && b.get(k+11) == 'n' && b.get(k+12)=='v') n++;
                    m &= m - 1;
                }
                i += 8;
            }
            pos += len;
        }
        return n;
    }
}
