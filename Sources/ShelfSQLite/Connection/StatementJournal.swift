internal import CSQLite

/// Where SQLite keeps statement journals: in memory up to `spillBytes`, in a temporary file
/// beyond.
///
/// Every statement that writes inside an explicit transaction and may fail half-way (an
/// INSERT that fires triggers, as each item write does) keeps a statement journal: the
/// pages it changes, to undo the statement alone. SQLite's default keeps 64 KiB of it in
/// memory, then spills it to a new file in /var/tmp. One item insert changes more pages
/// than that (the items table, its indexes, both full-text indexes, the change log), so
/// every one-row write created, wrote about 100 KB to, and removed a temporary file:
/// Benchmarks, `store.one_row_writes`. 1 MiB holds a one-row write's journal many times
/// over; a bulk statement (an import) still spills beyond it, so memory stays bounded.
enum StatementJournal {
    static let spillBytes: Int32 = 1 << 20

    /// Whether the setting took effect: it must precede SQLite's initialization, that is the
    /// first connection this process opens (the SQLite code of this package opens every
    /// connection through `Connection`, which applies it first). False when something else
    /// opened a connection before; writes then only spill sooner.
    static let configured: Bool = shelf_sqlite3_config_statement_journal_spill(spillBytes) == SQLITE_OK
}
