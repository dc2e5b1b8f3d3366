package dev.durable.boot.docs.quickstart;

/** The starter's README, section "Quick start": the machine's state. */
record Account(String email, boolean confirmed) {}
