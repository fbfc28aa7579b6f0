package io.zklock.core.spi.queue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One child of a lock directory, parsed once from its name
 * {@code _c_<uuid>-<kind>-<sequence>}: the protected prefix written by a protected create, the
 * recipe's kind ({@code lock}, {@code read}, {@code write}, ...) and the ten-digit sequence
 * number ZooKeeper appended.
 *
 * <p>A node whose process may keep it after use (a cached lease, see
 * {@code io.zklock.core.LeaseCaching}) says so in its uuid: version 8 ("custom", RFC 9562)
 * instead of the random version 4, so a waiter knows from a listing alone which nodes ahead
 * to ask back ({@link #caches()}).
 *
 * <p>A node may also carry an <b>anchor</b>, {@code _c_<uuid>-<kind>.<anchor>-<sequence>}: the
 * sequence number of an older node of the same directory whose place in the queue it takes
 * (a read lock's downgrade queues its read node at its own write node's place, ahead of the
 * writers that queued after it). The anchor is written like a sequence number.
 *
 * <p><b>Curator's layout.</b> Curator's recipes write protected names too: its mutex
 * {@code _c_<uuid>-lock-<sequence>} (the same as ours), its semaphore's leases
 * {@code _c_<uuid>-lease-<sequence>} (a kind like ours), and its read-write lock
 * {@code _c_<uuid>-__READ__<sequence>} and {@code _c_<uuid>-__WRIT__<sequence>}, with no dash
 * before the number. Those two parse as kinds {@code read} and {@code write}: a read node of
 * Curator's layout may carry ten more digits, {@code __READ__<anchor><sequence>}, which is how
 * zklock writes a downgrade's anchored read node in that layout (Curator sorts it, by the text
 * after {@code __READ__}, right after its anchor). Curator's own downgrade creates a plain
 * ephemeral node named with its write node's number: a read node that ties a write node's
 * sequence number (see {@link #ties}). {@link #curatorNamed()} tells the layout of a name.
 *
 * <p><b>Whose node.</b> A uuid zklock picks itself is of version 7 (or 8 for a cached node,
 * above): every node of a multi-lock's transaction, of an inferring transaction, and every node
 * written in Curator's layout. Curator's protected create picks random version-4 uuids, for
 * Curator's recipes and for zklock's plain creates alike. So {@link #zklockMarked()} tells a
 * zklock node from a listing alone, while a version-4 node may be Curator's: a node in Curator's
 * read-write layout that is not marked is Curator's own.
 *
 * @param name the child's name, relative to the lock directory
 * @param protectedId the uuid of the protected create that made it
 * @param kind what the node asks for; drivers tell kinds apart by this field
 * @param sequence the sequence number ZooKeeper gave it
 * @param anchor the sequence number whose place it takes in the queue, if any
 */
public record LockNode(String name, String protectedId, String kind, long sequence, OptionalLong anchor)
        implements Comparable<LockNode> {

    /*
     * The grammar parse() accepts, as a regular expression (the parser below is a hand-written
     * matcher of exactly this language; it runs on every child of every listing, on the event
     * thread, where the regex engine cost several times more):
     *   _c_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})
     *   -([a-z][a-z0-9]*)(?:\.(-[0-9]{9,10}|[0-9]{10}))?-(-[0-9]{9,10}|[0-9]{10})
     */
    static final String PROTECTED_PREFIX = "_c_";
    static final int UUID_START = PROTECTED_PREFIX.length();
    static final int UUID_LENGTH = 36;
    static final int KIND_START = UUID_START + UUID_LENGTH + 1;

    /**
     * Queue order: by {@linkplain #position() position}, then by sequence number, then by name
     * for a total order. Without anchors this is sequence order; an anchored node sorts right
     * after the node it is anchored at and before every node created after that one.
     */
    public static final Comparator<LockNode> QUEUE_ORDER = new QueueOrder();

    /** What Curator's read-write lock writes before the number of a read node. */
    public static final String CURATOR_READ = "__READ__";
    /** What Curator's read-write lock writes before the number of a write node. */
    public static final String CURATOR_WRITE = "__WRIT__";

    /**
     * The name, up to ZooKeeper's sequence number, of the node a request with {@code uuid}
     * creates: {@code _c_<uuid>-<namePrefix>}, where the prefix ends with what separates it
     * from the number ({@code lock-}, {@code __READ__}).
     */
    public static String protectedName(String uuid, String namePrefix) {
        return PROTECTED_PREFIX + uuid + "-" + namePrefix;
    }

    /** The name prefix of a node of {@code kind} in zklock's own layout: {@code <kind>-}. */
    public static String namePrefix(String kind) {
        return checkKind(kind) + "-";
    }

    /**
     * The name prefix of a node of {@code kind} in Curator's layout: {@code __READ__} and
     * {@code __WRIT__} for a read-write lock's kinds, {@code <kind>-} for every other kind
     * (Curator's mutex writes {@code lock-}, its semaphore {@code lease-}).
     */
    public static String curatorNamePrefix(String kind) {
        return switch (checkKind(kind)) {
            case "read" -> CURATOR_READ;
            case "write" -> CURATOR_WRITE;
            default -> kind + "-";
        };
    }

    /**
     * The node ZooKeeper names {@code _c_<protectedId>-<kind>-<sequence>}: what a protected
     * create of that request would make, without an anchor.
     *
     * @param protectedId a lower-case uuid
     * @param kind a lower-case word
     * @param sequence a sequence number, 0 or more
     * @return the node, as {@link #parse} reads that name
     * @throws IllegalArgumentException if the three do not make a lock node's name
     */
    public static LockNode of(String protectedId, String kind, long sequence) {
        String name = protectedName(protectedId, namePrefix(kind)) + String.format(Locale.ENGLISH, "%010d", sequence);
        return parse(name).orElseThrow(() -> new IllegalArgumentException("not a lock node's name: " + name));
    }

    /** Whether {@code child} is a node that the request with {@code uuid} created. */
    public static boolean createdBy(String child, String uuid) {
        return child.startsWith(PROTECTED_PREFIX + uuid + "-");
    }

    /** Index in a uuid's text of its version digit. */
    private static final int UUID_VERSION_AT = 14;
    private static final char CACHING_VERSION = '8';
    private static final char ZKLOCK_VERSION = '7';

    /** Index in a uuid's text of the two digits that mark a cached node whose holder hears creations. */
    private static final int HEARS_AT = UUID_VERSION_AT + 1;
    private static final String HEARS_MARK = "ce";
    /** Index in a uuid's text of a marked node's client tag (see {@link #newProtectedId(boolean, String)}). */
    private static final int TAG_AT = 24;
    /** How many hex digits a client tag has. */
    public static final int TAG_LENGTH = 8;

    /**
     * A new random uuid for a protected create: of zklock's version 7, or version 8 for a node
     * its process may keep cached after use.
     *
     * @param caching whether the node may be cached
     * @return the uuid's text
     */
    public static String newProtectedId(boolean caching) {
        return newProtectedId(caching, null);
    }

    /**
     * As {@link #newProtectedId(boolean)}; of a cached node whose holder lets it go on hearing
     * a conflicting node created behind it ({@code clientTag} given), the two digits after the
     * version are {@code ce} (never otherwise: {@link #hearsCreations()}) and the last group
     * starts with the client's tag, so that a listing tells its own client's nodes
     * ({@link #taggedBy}).
     *
     * @param caching whether the node may be cached
     * @param clientTag {@link #TAG_LENGTH} lower-case hex digits of the client whose holder hears
     *        creations; null if it does not
     * @return the uuid's text
     */
    public static String newProtectedId(boolean caching, String clientTag) {
        String uuid = java.util.UUID.randomUUID().toString();
        String rest = uuid.substring(HEARS_AT);
        if (caching && clientTag != null) {
            rest = HEARS_MARK + rest.substring(HEARS_MARK.length(), TAG_AT - HEARS_AT) + clientTag
                    + rest.substring(TAG_AT - HEARS_AT + TAG_LENGTH);
        } else if (caching && rest.startsWith(HEARS_MARK)) {
            rest = "cf" + rest.substring(HEARS_MARK.length());   // random digits never claim it
        }
        return uuid.substring(0, UUID_VERSION_AT) + (caching ? CACHING_VERSION : ZKLOCK_VERSION) + rest;
    }

    /**
     * Whether zklock picked the node's uuid (version 7, or 8 for a cached node): the node is
     * zklock's. Otherwise Curator's protected create picked it, for one of Curator's recipes or
     * for a plain create of zklock's default mode (see the class comment).
     *
     * @return whether the uuid is of a version zklock writes
     */
    public boolean zklockMarked() {
        char version = protectedId.length() > UUID_VERSION_AT ? protectedId.charAt(UUID_VERSION_AT) : '?';
        return version == ZKLOCK_VERSION || version == CACHING_VERSION;
    }

    /**
     * Whether the node is one of Curator's read-write lock: Curator's layout, with a uuid
     * zklock did not pick (zklock writes that layout only with uuids of its own).
     */
    public boolean curatorsReadWriteNode() {
        return curatorNamed() && !zklockMarked();
    }

    /** Whether the name is written in Curator's read-write layout ({@code __READ__}, {@code __WRIT__}). */
    public boolean curatorNamed() {
        return name.startsWith(CURATOR_READ, KIND_START) || name.startsWith(CURATOR_WRITE, KIND_START);
    }

    /**
     * Whether this node and {@code other} carry one sequence number without being one node: two
     * nodes ZooKeeper numbered never do, so one of them was created plainly with the other's
     * number (Curator's downgrade names its read node after its write node).
     */
    public boolean ties(LockNode other) {
        return sequence == other.sequence && !name.equals(other.name);
    }

    /**
     * Whether the node's process may keep it after its last lease closes (a cached lease); a
     * conflicting waiter behind it asks it back (an ask: a line written into its data; not a
     * revocation request, which only an operator writes). Names are written by other clients
     * too: a false claim only draws asks onto its node.
     *
     * @return whether the uuid is of the caching version
     */
    public boolean caches() {
        return protectedId.length() > UUID_VERSION_AT && protectedId.charAt(UUID_VERSION_AT) == CACHING_VERSION;
    }

    /**
     * Whether the node is cached ({@link #caches()}) and its holder said, at its create, that it
     * lets it go on hearing a conflicting node created behind it: a waiter behind it need not ask
     * it back at once (it still does after a bound: the holder may not hear, cut off or on a
     * server without tree watches). A claim only; a false one costs its waiters the bound.
     *
     * @return whether the uuid carries the mark
     */
    public boolean hearsCreations() {
        return caches() && protectedId.startsWith(HEARS_MARK, HEARS_AT);
    }

    /**
     * Whether the node hears creations ({@link #hearsCreations()}) and carries {@code clientTag}:
     * it is a node of that client (or of one whose tag is the same, which only makes its waiters
     * ask at once).
     *
     * @param clientTag a client's tag, or null (never matched)
     * @return whether the node carries it
     */
    public boolean taggedBy(String clientTag) {
        return clientTag != null && hearsCreations() && protectedId.startsWith(clientTag, TAG_AT);
    }

    /** A node without an anchor. */
    public LockNode(String name, String protectedId, String kind, long sequence) {
        this(name, protectedId, kind, sequence, OptionalLong.empty());
    }

    public LockNode {
        if (anchor == null) {
            throw new IllegalArgumentException("anchor is null; use OptionalLong.empty()");
        }
    }

    /** The node's place in the queue: its anchor if it has one, else its sequence number. */
    public long position() {
        return anchor.orElse(sequence);
    }

    /**
     * The name prefix (before ZooKeeper's sequence number) of a node of {@code kind} anchored
     * at {@code anchorSequence}, e.g. {@code read.0000000042}.
     *
     * @throws IllegalArgumentException if the kind is not a lower-case word
     */
    public static String anchoredPrefix(String kind, long anchorSequence) {
        return checkKind(kind) + "." + String.format(Locale.ENGLISH, "%010d", anchorSequence);
    }

    /**
     * {@link #anchoredPrefix}, in Curator's layout: {@code __READ__<anchor>}, so that Curator's
     * clients, which sort by the text after {@code __READ__}, sort the node right after its anchor.
     *
     * @throws IllegalArgumentException if the kind is not {@code read} (Curator anchors nothing else)
     */
    public static String curatorAnchoredPrefix(String kind, long anchorSequence) {
        if (!"read".equals(kind)) {
            throw new IllegalArgumentException("only read nodes are anchored in Curator's layout, not '" + kind + "'");
        }
        return CURATOR_READ + String.format(Locale.ENGLISH, "%010d", anchorSequence);
    }

    /** A node kind must be a lower-case word, as it is part of every node name. */
    public static String checkKind(String kind) {
        if (kind == null || !kind.matches("[a-z][a-z0-9]*")) {
            throw new IllegalArgumentException("invalid node kind '" + kind + "': expected a lower-case word");
        }
        return kind;
    }

    /** The children of a lock directory that are lock nodes, in queue order; foreign names dropped. */
    public static List<LockNode> sorted(List<String> children) {
        List<LockNode> nodes = new ArrayList<>(children.size());
        for (String child : children) {
            LockNode node = NodeNameParser.parsedOrNull(child);
            if (node != null) {
                nodes.add(node);
            }
        }
        nodes.sort(QUEUE_ORDER);
        return nodes;
    }

    /**
     * Parses a child name; foreign or malformed names give an empty optional and are never
     * thrown on, so a stray child in a lock directory is ignored.
     */
    public static Optional<LockNode> parse(String name) {
        return Optional.ofNullable(NodeNameParser.parsedOrNull(name));
    }

    /** Whether this node is of the given kind. */
    public boolean is(String otherKind) {
        return kind.equals(otherKind);
    }

    @Override
    public int compareTo(LockNode other) {
        return QUEUE_ORDER.compare(this, other);
    }
}
