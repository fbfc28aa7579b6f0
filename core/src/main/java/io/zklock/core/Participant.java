package io.zklock.core;

/**
 * One node of a lock directory as {@code status} shows it.
 *
 * @param nodePath full path of the node
 * @param kind the node's kind ({@code lock}, {@code read}, {@code write}, ...)
 * @param sequence its queue position number
 * @param owner who created it
 * @param holding whether the recipe's driver grants it, given the directory as listed
 */
public record Participant(String nodePath, String kind, long sequence, OwnerInfo owner, boolean holding) {
}
