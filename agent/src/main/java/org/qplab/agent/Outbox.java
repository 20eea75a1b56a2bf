package org.qplab.agent;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.qplab.agent.log.Log;
import org.qplab.protocol.AgentMessage;
import org.qplab.protocol.IntervalFrame;
import tools.jackson.databind.ObjectMapper;

/**
 * What the agent has to deliver to the controller and has not had acknowledged: frames and run
 * ends, in the order they were put (so a run's end comes after its frames, and a run that ends later is
 * sent later whatever its id), each found by its (run, seq) when acknowledged. Frames stay in memory up to a limit; beyond it they
 * go to the on-disk spool, so a long outage costs disk, not the agent's heap, and never a frame. A run's
 * end is always written to the spool too (it is small, and it is what a restarted agent needs to report).
 * The spool survives the agent process: a new process loads what an earlier one left.
 *
 * <p>Every entry belongs to the controller installation that assigned its run (run ids mean nothing to
 * another controller's database). Entries of another installation are never replayed: they are moved
 * aside under {@code undeliverable/} and named in the log.
 *
 * <p>Spool layout: {@code DIR/INSTALLATION/r<run>-s<seq>.qpbs} (a frame as it goes on the wire) and
 * {@code DIR/INSTALLATION/r<run>-end.json}; written to a temporary name, then renamed. No fsync: the spool
 * is meant to survive a dead process or a broken link, not a power cut.
 */
final class Outbox {

    static final long RUN_END = Long.MAX_VALUE;
    /** Entries whose run was assigned before any controller said who it is. */
    static final String UNKNOWN = "unknown";
    private static final Pattern FRAME = Pattern.compile("r(\\d+)-s(\\d+)\\.qpbs");
    private static final Pattern END = Pattern.compile("r(\\d+)-end\\.json");

    record Key(long runId, long seq) implements Comparable<Key> {
        @Override
        public int compareTo(Key o) {
            int byRun = Long.compare(runId, o.runId);
            return byRun != 0 ? byRun : Long.compare(seq, o.seq);
        }
    }

    /** item: the frame or run end in memory, or null when only the file has it. */
    private record Entry(Key key, String installation, Object item, Path file, long bytes) {}

    private final Path dir;
    private final long memoryLimit;
    private final ObjectMapper json;
    /** Entries by the position they were put at: the delivery order. */
    private final ConcurrentSkipListMap<Long, Entry> entries = new ConcurrentSkipListMap<>();
    private final ConcurrentHashMap<Key, Long> positions = new ConcurrentHashMap<>();
    private final AtomicLong nextPosition = new AtomicLong();
    private final AtomicLong memoryBytes = new AtomicLong();
    private final AtomicLong diskBytes = new AtomicLong();
    private final AtomicLong spilled = new AtomicLong();
    private volatile boolean diskBroken;

    /** dir: the spool directory, or null for memory only; memoryLimit: bytes of frames kept in memory. */
    Outbox(Path dir, long memoryLimit, ObjectMapper json) {
        this.dir = dir;
        this.memoryLimit = memoryLimit;
        this.json = json;
    }

    /** Loads what an earlier agent process left in the spool; returns how many entries. */
    int load() throws IOException {
        if (dir == null || !Files.isDirectory(dir)) {
            return 0;
        }
        List<Entry> found = new ArrayList<>();
        try (DirectoryStream<Path> installations = Files.newDirectoryStream(dir, Files::isDirectory)) {
            for (Path inst : installations) {
                String installation = inst.getFileName().toString();
                if (installation.equals("undeliverable")) {
                    continue;
                }
                try (DirectoryStream<Path> files = Files.newDirectoryStream(inst)) {
                    for (Path file : files) {
                        Entry e = read(installation, file);
                        if (e != null) {
                            found.add(e);
                        }
                    }
                }
            }
        }
        found.sort(Comparator.comparing(Entry::key)); // what an earlier process left: by run, then seq, end last
        int loaded = 0;
        for (Entry e : found) {
            if (positions.containsKey(e.key())) { // the same run id from two controllers' databases
                Log.info("spool: " + e.file() + " has the same run and sequence as another spooled entry; kept aside");
                moveAside(e);
                continue;
            }
            add(e);
            diskBytes.addAndGet(e.bytes());
            loaded++;
        }
        return loaded;
    }

    private Entry read(String installation, Path file) throws IOException {
        String name = file.getFileName().toString();
        Matcher frame = FRAME.matcher(name);
        Matcher end = END.matcher(name);
        long size = Files.size(file);
        if (frame.matches()) {
            Entry e = new Entry(new Key(Long.parseLong(frame.group(1)), Long.parseLong(frame.group(2))), installation,
                    null, file, size);
            int version = layoutVersion(file);
            if (!IntervalFrame.reads(version)) { // an earlier release's agent spooled it: no controller of ours reads it
                Log.info("spool: " + file + " is a frame of layout version " + version + ", which this agent's "
                        + "controller does not read (versions " + IntervalFrame.OLDEST_VERSION + " to "
                        + IntervalFrame.VERSION + "); kept aside");
                moveAside(e);
                return null;
            }
            return e;
        } else if (end.matches()) {
            return new Entry(new Key(Long.parseLong(end.group(1)), RUN_END), installation,
                    json.readValue(Files.readString(file), AgentMessage.class), file, size);
        }
        Files.deleteIfExists(file); // a temporary file a killed process did not rename
        return null;
    }

    /** The layout version in a spooled frame's header (-1 when it has none). */
    private static int layoutVersion(Path file) throws IOException {
        try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer head = ByteBuffer.allocate(6).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            while (head.hasRemaining() && in.read(head) > 0) {
                // read the magic and the version
            }
            return head.position() == 6 && head.getInt(0) == IntervalFrame.MAGIC ? head.getShort(4) : -1;
        }
    }

    private void add(Entry e) {
        long position = nextPosition.getAndIncrement();
        positions.put(e.key(), position);
        entries.put(position, e);
    }

    private Entry remove(Key key) {
        Long position = positions.remove(key);
        return position == null ? null : entries.remove(position);
    }

    /** Keeps a frame until it is acknowledged: in memory while under the limit, else in the spool. */
    void put(String installation, IntervalFrame frame) {
        Key key = new Key(frame.runId(), frame.seq());
        long bytes = frame.encodedBytes();
        if (memoryBytes.get() + bytes > memoryLimit) {
            Path file = spill(installation, "r" + key.runId() + "-s" + key.seq() + ".qpbs", frame.encode());
            if (file != null) {
                add(new Entry(key, installation, null, file, bytes));
                return;
            }
        }
        memoryBytes.addAndGet(bytes);
        add(new Entry(key, installation, frame, null, bytes));
    }

    /** Keeps a run's end (RunFinished / RunFailed), in memory and in the spool. */
    void putEnd(String installation, long runId, AgentMessage end) {
        byte[] text = json.writeValueAsBytes(end);
        Path file = spill(installation, "r" + runId + "-end.json", ByteBuffer.wrap(text));
        add(new Entry(new Key(runId, RUN_END), installation, end, file, text.length));
    }

    /** The frame or run end at this position, or null when it was acknowledged meanwhile. */
    Object load(long position) {
        Entry e = entries.get(position);
        if (e == null) {
            return null;
        }
        if (e.item() != null) {
            return e.item();
        }
        try {
            return IntervalFrame.decode(ByteBuffer.wrap(Files.readAllBytes(e.file())));
        } catch (NoSuchFileException gone) {
            return null; // acknowledged while we read it
        } catch (IOException ex) {
            throw new IllegalStateException("cannot read spooled frame " + e.file() + ": " + ex.getMessage(), ex);
        }
    }

    /** The controller stored it: forget it (and its file). */
    void ack(Key key) {
        Entry e = remove(key);
        if (e == null) {
            return;
        }
        if (e.item() instanceof IntervalFrame) {
            memoryBytes.addAndGet(-e.bytes());
        }
        if (e.file() != null) {
            diskBytes.addAndGet(-e.bytes());
            try {
                Files.deleteIfExists(e.file());
            } catch (IOException ex) {
                Log.info("cannot delete acknowledged spool file " + e.file() + ": " + ex.getMessage());
            }
        }
    }

    /**
     * The controller that answers is installation: entries of any other installation cannot be delivered
     * to it. They leave the outbox (their files move under undeliverable/); returns how many.
     */
    int keepOnly(String installation) {
        int moved = 0;
        for (Entry e : List.copyOf(entries.values())) {
            if (e.installation().equals(installation) || e.installation().equals(UNKNOWN) || remove(e.key()) == null) {
                continue;
            }
            moved++;
            if (e.item() instanceof IntervalFrame) {
                memoryBytes.addAndGet(-e.bytes());
            }
            if (e.file() != null) {
                diskBytes.addAndGet(-e.bytes());
            }
            moveAside(e);
        }
        return moved;
    }

    /**
     * Writes every frame kept only in memory to the spool (before the agent stops: a refused agent's next start, with
     * a token the controller takes, delivers them). Returns how many entries the spool holds now.
     */
    int persist() {
        for (Map.Entry<Long, Entry> held : entries.entrySet()) {
            Entry e = held.getValue();
            if (e.file() == null && e.item() instanceof IntervalFrame frame) {
                Path file = spill(e.installation(), "r" + e.key().runId() + "-s" + e.key().seq() + ".qpbs", frame.encode());
                if (file != null && entries.replace(held.getKey(), e, new Entry(e.key(), e.installation(), null, file, e.bytes()))) {
                    memoryBytes.addAndGet(-e.bytes());
                }
            }
        }
        return (int) entries.values().stream().filter(e -> e.file() != null).count();
    }

    /** The position of the first entry to deliver, or null. */
    Long first() {
        return entries.isEmpty() ? null : entries.firstKey();
    }

    /** The position of the entry to deliver after the one at position, or null. */
    Long after(long position) {
        return entries.higherKey(position);
    }

    /** The runs with anything still to deliver. */
    Set<Long> runs() {
        Set<Long> runs = new TreeSet<>();
        positions.keySet().forEach(k -> runs.add(k.runId()));
        return runs;
    }

    int size() {
        return entries.size();
    }

    boolean isEmpty() {
        return entries.isEmpty();
    }

    long memoryBytes() {
        return memoryBytes.get();
    }

    long diskBytes() {
        return diskBytes.get();
    }

    /** Frames written to the spool since start (the memory limit was reached). */
    long spilled() {
        return spilled.get();
    }

    /** Writes bytes to DIR/installation/name; null (and the entry stays in memory) when there is no usable disk. */
    private Path spill(String installation, String name, ByteBuffer bytes) {
        if (dir == null || diskBroken) {
            return null;
        }
        try {
            Path parent = Files.createDirectories(dir.resolve(installation));
            Path tmp = parent.resolve(name + ".tmp");
            try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ByteBuffer b = bytes.duplicate();
                long size = b.remaining();
                while (b.hasRemaining()) {
                    out.write(b);
                }
                diskBytes.addAndGet(size);
            }
            Path file = parent.resolve(name);
            move(tmp, file);
            if (name.endsWith(".qpbs")) {
                spilled.incrementAndGet();
            }
            return file;
        } catch (IOException e) {
            diskBroken = true;
            Log.info("cannot write the spool in " + dir + " (" + e + "); keeping everything in memory from now on");
            return null;
        }
    }

    /** Keeps an undeliverable entry under DIR/undeliverable/INSTALLATION (nothing is kept without a spool). */
    private void moveAside(Entry e) {
        if (dir == null) {
            return;
        }
        try {
            Path aside = Files.createDirectories(dir.resolve("undeliverable").resolve(e.installation()));
            if (e.file() != null) {
                move(e.file(), aside.resolve(e.file().getFileName()));
            } else if (e.item() instanceof IntervalFrame frame) {
                Files.write(aside.resolve("r" + e.key().runId() + "-s" + e.key().seq() + ".qpbs"), bytesOf(frame.encode()));
            }
        } catch (IOException ex) {
            Log.info("cannot keep undeliverable run " + e.key().runId() + " entry aside: " + ex.getMessage());
        }
    }

    private static byte[] bytesOf(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }

    private static void move(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
