package io.zklock.conformance.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import io.zklock.core.MultiLease;
import io.zklock.leader.Leadership;
import io.zklock.leader.ZkLeaderElection;
import io.zklock.multilock.ZkMultiLock;
import io.zklock.mutex.ZkMutex;
import io.zklock.readwrite.ZkReadWriteLock;
import io.zklock.semaphore.ZkSemaphore;
import org.junit.jupiter.api.Test;

/** What a user sees of the recipes. */
class PublicSurfacePropertiesTest {

    /**
     * No public method of a recipe takes or returns a type of core's sub-packages (SPI, observer SPI, internals): a user
     * cannot reach the engine through a recipe (an engine's acquire would skip re-entry).
     */
    @Test
    void recipesExposeNoEngineType() {
        List<String> leaks = new ArrayList<>();
        for (Class<?> recipe : List.of(ZkMutex.class, ZkSemaphore.class, ZkReadWriteLock.class, ZkReadWriteLock.ReadLock.class,
                ZkReadWriteLock.WriteLock.class, ZkMultiLock.class, MultiLease.class, ZkLeaderElection.class, Leadership.class)) {
            for (Method method : recipe.getMethods()) {
                if (!Modifier.isPublic(method.getModifiers())) {
                    continue;
                }
                Stream.concat(Stream.of(method.getReturnType()), Stream.of(method.getParameterTypes()))
                        .filter(type -> type.getPackageName().startsWith("io.zklock.core."))   // the SPI, observer SPI and internals
                        .forEach(type -> leaks.add(recipe.getSimpleName() + "." + method.getName() + ": " + type.getName()));
            }
        }
        assertEquals(List.of(), leaks);
    }
}
