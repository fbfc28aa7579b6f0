package io.zklock.core.spi.queue;

import java.util.OptionalLong;

/**
 * Reads a child's name as a {@link LockNode}: zklock's layout
 * ({@code _c_<uuid>-<kind>[.<anchor>]-<sequence>}) and Curator's read-write layout
 * ({@code _c_<uuid>-__READ__[<anchor>]<sequence>}, {@code __WRIT__}). One pass over the
 * characters, no regular expression, no exception: a name that is not exactly one of these is
 * foreign, and gives null. The formats themselves are stated in {@link LockNode}.
 */
final class NodeNameParser {
    private NodeNameParser() {
    }

    /** {@link #parse}, with null for a foreign name: no Optional per child of a listing. */
    static LockNode parsedOrNull(String name) {
        if (name == null) {
            return null;
        }
        int n = name.length();
        if (n <= LockNode.KIND_START || !name.startsWith(LockNode.PROTECTED_PREFIX) || !isUuid(name, LockNode.UUID_START)
                || name.charAt(LockNode.KIND_START - 1) != '-') {
            return null;
        }
        int i = LockNode.KIND_START;
        if (name.charAt(i) == '_') {
            return parsedCuratorReadWrite(name);
        }
        if (!isLowerLetter(name.charAt(i))) {
            return null;
        }
        do {
            i++;
        } while (i < n && (isLowerLetter(name.charAt(i)) || isDigit(name.charAt(i))));
        int kindEnd = i;
        OptionalLong anchor = OptionalLong.empty();
        if (i < n && name.charAt(i) == '.') {
            int end = numberEnd(name, i + 1);
            if (end < 0) {
                return null;
            }
            anchor = OptionalLong.of(Long.parseLong(name, i + 1, end, 10));
            i = end;
        }
        if (i >= n || name.charAt(i) != '-' || numberEnd(name, i + 1) != n) {
            return null;
        }
        long sequence = Long.parseLong(name, i + 1, n, 10);
        return new LockNode(name, name.substring(LockNode.UUID_START, LockNode.UUID_START + LockNode.UUID_LENGTH),
                kind(name, kindEnd), sequence, anchor);
    }

    /**
     * A name of Curator's read-write layout: {@code __READ__} or {@code __WRIT__}, then a
     * number written like a sequence number; a read node may carry a second one, the first
     * being its anchor. Anything else is foreign.
     */
    private static LockNode parsedCuratorReadWrite(String name) {
        String kind;
        if (name.startsWith(LockNode.CURATOR_READ, LockNode.KIND_START)) {
            kind = "read";
        } else if (name.startsWith(LockNode.CURATOR_WRITE, LockNode.KIND_START)) {
            kind = "write";
        } else {
            return null;
        }
        int n = name.length();
        int first = LockNode.KIND_START + LockNode.CURATOR_READ.length();
        OptionalLong anchor = OptionalLong.empty();
        int at = first;
        if (kind.equals("read") && n - first > SEQUENCE_WIDTH) {    // an anchor, written in exactly ten characters
            int anchorEnd = first + SEQUENCE_WIDTH;
            if (!isTenCharacterNumber(name, first)) {
                return null;
            }
            anchor = OptionalLong.of(Long.parseLong(name, first, anchorEnd, 10));
            at = anchorEnd;
        }
        if (numberEnd(name, at) != n) {
            return null;
        }
        long sequence = Long.parseLong(name, at, n, 10);
        return new LockNode(name, name.substring(LockNode.UUID_START, LockNode.UUID_START + LockNode.UUID_LENGTH), kind, sequence, anchor);
    }

    /** The width ZooKeeper writes a sequence number in ({@code %010d}). */
    private static final int SEQUENCE_WIDTH = 10;

    /** Whether {@code s} holds, at {@code from}, ten digits or {@code -} and nine digits. */
    private static boolean isTenCharacterNumber(String s, int from) {
        int start = s.charAt(from) == '-' ? from + 1 : from;
        for (int k = start; k < from + SEQUENCE_WIDTH; k++) {
            if (!isDigit(s.charAt(k))) {
                return false;
            }
        }
        return true;
    }

    /** Kinds most listings are made of: parsed to these very strings, not to a new copy per child. */
    private static final String[] COMMON_KINDS = {"lock", "read", "write"};

    /** The kind in {@code name} (from {@code LockNode.KIND_START} to {@code kindEnd}). */
    private static String kind(String name, int kindEnd) {
        int length = kindEnd - LockNode.KIND_START;
        for (String common : COMMON_KINDS) {
            if (common.length() == length && name.startsWith(common, LockNode.KIND_START)) {
                return common;
            }
        }
        return name.substring(LockNode.KIND_START, kindEnd);
    }

    /** Whether {@code s} holds a lower-case 8-4-4-4-12 hex uuid at {@code from}. */
    private static boolean isUuid(String s, int from) {
        if (s.length() < from + LockNode.UUID_LENGTH) {
            return false;
        }
        for (int k = 0; k < LockNode.UUID_LENGTH; k++) {
            char c = s.charAt(from + k);
            boolean ok = k == 8 || k == 13 || k == 18 || k == 23 ? c == '-' : isDigit(c) || (c >= 'a' && c <= 'f');
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /**
     * The end of a number written like a sequence number ({@code -} and 9 or 10 digits, or
     * exactly 10 digits) starting at {@code from}, or -1. The digit run is taken whole: in a
     * name a number is followed by {@code -} or the end, never by a digit.
     */
    private static int numberEnd(String s, int from) {
        int n = s.length();
        boolean negative = from < n && s.charAt(from) == '-';
        int i = negative ? from + 1 : from;
        int digitsStart = i;
        while (i < n && isDigit(s.charAt(i))) {
            i++;
        }
        int digits = i - digitsStart;
        return (negative ? digits == 9 || digits == 10 : digits == 10) ? i : -1;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isLowerLetter(char c) {
        return c >= 'a' && c <= 'z';
    }
}
