package io.zklock.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class LockPathsTest {

    /** Valid lock paths are returned unchanged (the same instance). */
    @ParameterizedTest
    @ValueSource(strings = {
            "/a", "/locks/a", "/locks/orders-42/a_b.c", "/a/.b", "/a/b.", "/a/..b", "/a/b..c",
            "/zookeeperx", "/zoo/keeper", "/x/zookeeper", "/locks/ünïcödé", "/a b"})
    void acceptsValidPaths(String path) {
        assertSame(path, LockPaths.validate(path));
    }

    static Stream<Arguments> invalidPaths() {
        return Stream.of(
                Arguments.of("", ""),
                Arguments.of("locks/a", "locks/a"),
                Arguments.of("a", "a"),
                Arguments.of("/a/", "/a/"),
                Arguments.of("/a//b", "/a//b"),
                Arguments.of("//", "//"),
                Arguments.of("/.", "/."),
                Arguments.of("/..", "/.."),
                Arguments.of("/a/./b", "/a/./b"),
                Arguments.of("/a/../b", "/a/../b"),
                Arguments.of("/a/.", "/a/."),
                Arguments.of("/a/..", "/a/.."),
                Arguments.of("/a\u0001", "/a\\u0001"),
                Arguments.of("/a\u0000b", "/a\\u0000b"),
                Arguments.of("/a\nb", "/a\\u000ab"),
                Arguments.of("/a\u007f", "/a\\u007f"),
                Arguments.of("/", "/"),
                Arguments.of("/zookeeper", "/zookeeper"),
                Arguments.of("/zookeeper/x", "/zookeeper/x"),
                Arguments.of("/zookeeper/config", "/zookeeper/config"));
    }

    /** Each invalid path gives an IllegalArgumentException whose message quotes the path in printable form. */
    @ParameterizedTest
    @MethodSource("invalidPaths")
    void rejectsInvalidPathNamingIt(String path, String printable) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LockPaths.validate(path));

        assertTrue(e.getMessage().contains("'" + printable + "'"), e.getMessage());
    }

    /** A null path gives an IllegalArgumentException saying it is null. */
    @Test
    void rejectsNull() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LockPaths.validate(null));

        assertTrue(e.getMessage().contains("null"), e.getMessage());
    }

    /** The message for a path with control characters carries none of them (it goes to logs and terminals). */
    @ParameterizedTest
    @ValueSource(strings = {"/a\u0001", "/a\u0000b", "/a\nb", "/a\u001b[2Jb"})
    void messageHasNoControlCharacters(String path) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LockPaths.validate(path));

        assertTrue(e.getMessage().codePoints().noneMatch(Character::isISOControl), e.getMessage());
    }

    /** A user's name maps to one node name: safe characters stay, the rest is %XX per UTF-8 byte, a dots-only name is encoded whole, a lone surrogate is refused by name. */
    @Test
    void namesMapToOneSafeNodeName() {
        assertEquals("order-42_A.b", LockPaths.nodeNameOf("key", "order-42_A.b"));
        assertEquals("a%2Fb", LockPaths.nodeNameOf("key", "a/b"));
        assertEquals("a%252Fb", LockPaths.nodeNameOf("key", "a%2Fb"));
        assertEquals("%2E%2E", LockPaths.nodeNameOf("key", ".."));
        assertEquals("..%2Fx", LockPaths.nodeNameOf("key", "../x"));
        assertEquals("%C3%A9%F0%9F%98%80", LockPaths.nodeNameOf("key", "\u00e9\ud83d\ude00"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LockPaths.nodeNameOf("job", "a\ud800"));
        assertTrue(e.getMessage().startsWith("job holds a lone surrogate"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> LockPaths.nodeNameOf("job", ""));
    }
}
