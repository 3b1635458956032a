internal import Foundation

/// A shelf: users and items in a database, migrated to this version's schema.
///
/// The database is a SQLite file (`Store(path:)`, embedded, the default) or, with the
/// ShelfPostgres library, a PostgreSQL server (`Store.open(postgres:)`); both behave the same
/// through this type, and nothing that uses a store needs to know which it has.
///
/// Open one per database and share it: `Store` and its repositories are thread-safe, and all
/// their methods may be called from any task. Call `close()` when done: when it returns the
/// store's connections are ended (a SQLite file's WAL merged and removed). A store released
/// without it closes itself when the last reference to it (or one of its repositories) goes.
///
/// ```swift
/// let store = try Store(path: "shelf.sqlite")
/// let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
/// try await store.items.insert(NewItem(userID: ann, title: "Read Dune"))
/// let open = try await store.items.items(matching: ItemQuery(status: .open), limit: 50)
/// ```
public final class Store: Sendable {
    /// Users of this store.
    public let users: any UserRepository
    /// Items of this store.
    public let items: any ItemRepository
    /// Saved views (named searches of the item list) of this store.
    public let views: any SavedViewRepository
    /// The migrations this open applied (empty when the database was up to date).
    public var appliedMigrations: [String] { backend.appliedMigrations }
    /// What opening put right in the schema that another program had broken, one sentence
    /// each ("put back shelf_item_count_deltas and counted the items again"); empty in a
    /// healthy store. On PostgreSQL, a dropped count table is made again and counted, and a
    /// change log sequence set back (by a data-only restore) is moved past the log's rows;
    /// SQLite stores report nothing here. `shelf migrate` prints them.
    public var repairs: [String] { backend.repairs }
    /// Users whose emails differ only in letter case (`Äda@x.com` and `äda@x.com`), found when
    /// the store opened: stored before emails were one user whatever their case, or by a
    /// program that does not know the rule. Empty in a healthy store; `shelf migrate` prints
    /// them and what to do.
    public var emailCollisions: [EmailCollision] { backend.emailCollisions }
    /// The database file, or nil for a store that is not a local file (in memory, or on a
    /// server).
    public var path: String? { backend.path }
    /// Where the store lives, fit to show to a person: the file's path, or the server's URL
    /// without its password.
    public var location: String { backend.location }
    /// `location` when another program can open the store there (a file, or a server's URL
    /// without its password); nil for a store only this process can reach (in memory).
    public var shareableLocation: String? { backend.shareableLocation }
    /// What a write of this store waits for now, when it waits for another program's write
    /// (a bulk change in another browser): "process 812 (shelf browse …)", or "another
    /// process" when it cannot be named; nil when no write waits, or the store cannot tell (a
    /// server's store). It reads lock state from files: call it off the threads tasks share.
    public var writeLockWait: String? { backend.writeLockWait }

    /// The database engine behind this store.
    package let backend: any StoreBackend
    /// What the backend tells tests about its work (nil when it tells nothing).
    private let testHooks: (any StoreTestHooks)?
    /// The `itemPages` reads in progress, which `close()` ends.
    let snapshotReads = SnapshotReads()

    /// A store over `backend`; `testHooks` (usually the backend itself) answers
    /// `liveQueryRuns` and `statementCount`.
    package init(backend: any StoreBackend, testHooks: (any StoreTestHooks)? = nil) {
        self.backend = backend
        self.testHooks = testHooks
        users = backend.users
        items = backend.items
        views = backend.views
    }

    /// Ends the store's connections once the calls in progress have ended; live values stop
    /// changing. Safe to call more than once. Deterministic: when it returns, a SQLite store's
    /// file is closed and, when no other process has it open, its WAL is merged into it and
    /// the `-wal` file removed; a server store's connections are ended. Every later call on
    /// the store or its repositories throws `StoreError` with code `.closed`, naming the
    /// store. A store that is released without `close()` closes itself too (a server store
    /// then keeps its background work until the process ends). Snapshot reads in progress
    /// (`itemPages`) end first: their next page throws `.closed`.
    public func close() async {
        await snapshotReads.close(
            with: StoreError(.closed, "\(location) was closed during a read of it in pages; open it again to read it"))
        await backend.close()
    }

    /// How many times this store's live values have run their queries (first reads included),
    /// for tests.
    package var liveQueryRuns: Int { testHooks?.liveQueryRuns ?? 0 }

    /// How many reads this store's live values have made so far: first reads, and re-reads
    /// of a whole result or of a count (not the questions about single changed rows). A
    /// diagnostic for metrics and benchmarks (re-reads per commit); 0 when the backend does not
    /// count them. Grows only; read it twice and subtract.
    public var liveReadCount: Int { liveQueryRuns }

    /// How many SQL statements this store has run, for tests that check a path runs none (0
    /// when the backend does not count them).
    package var statementCount: Int { testHooks?.statementCount ?? 0 }
}
