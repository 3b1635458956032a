public import Logging
extension Store {
    /// Settings of an open store where the defaults may not fit: how long calls wait for
    /// locks, how much each SQLite connection caches, when an import takes the bulk path, and
    /// what the diagnostics log calls slow. Pass one when opening a store
    /// (`Store(path:configuration:)`, `Store.open(postgres:configuration:)`).
    ///
    /// The library reads no environment variable: a program builds its configuration (the
    /// `shelf` command from its `SHELF_*` variables) and passes it.
    public struct Configuration: Sendable, Hashable {
        /// How long a write waits for a lock another process or session holds before it fails
        /// and names the holder: SQLite's write lock, PostgreSQL's row and table locks. 60 s.
        public var writeTimeout: Duration
        /// How long a SQLite read waits for another process's lock. 5 s.
        public var readTimeout: Duration
        /// Calls (SQLite statements, PostgreSQL queries) that take at least this long are logged
        /// as slow at debug level, with their SQL but never their values; zero logs every one.
        /// 100 ms. Applies to the whole process: the store opened last sets it.
        public var slowQueryThreshold: Duration
        /// The SQLite writer connection's page cache, in KiB: a ceiling, allocated as pages are
        /// read. 32 MiB.
        public var writerCacheKiB: Int
        /// Each SQLite reader connection's page cache, in KiB. 8 MiB.
        public var readerCacheKiB: Int
        /// The fewest rows an import into a SQLite store must stage to take the bulk path
        /// (indexes and triggers set aside, then rebuilt once). 10,000.
        public var bulkImportMinimumRows: Int64
        /// The fewest items a bulk change (the browser's actions on marked items, their undo
        /// and redo) must write in a SQLite store, a quarter of its items or more, to set aside
        /// the indexes on the columns it changes and make them again once. 10,000.
        public var bulkActionMinimumRows: Int64
        /// The level from which the store's diagnostics (swift-log labels `shelf.sqlite` and
        /// `shelf.postgres`: change tracking, checkpoints, migrations, pool events, slow calls;
        /// all at `debug` or `trace`) reach the process's log handler; nil (the default) leaves
        /// the choice to the handler's own level. Applies to the whole process, as
        /// `slowQueryThreshold` does.
        public var logLevel: Logger.Level?

        /// A configuration; every setting not given has its default.
        public init(
            writeTimeout: Duration = .seconds(60), readTimeout: Duration = .seconds(5),
            slowQueryThreshold: Duration = .milliseconds(100), writerCacheKiB: Int = 32 * 1024,
            readerCacheKiB: Int = 8 * 1024, bulkImportMinimumRows: Int64 = 10_000,
            bulkActionMinimumRows: Int64 = 10_000, logLevel: Logger.Level? = nil
        ) {
            self.writeTimeout = writeTimeout
            self.readTimeout = readTimeout
            self.slowQueryThreshold = slowQueryThreshold
            self.writerCacheKiB = writerCacheKiB
            self.readerCacheKiB = readerCacheKiB
            self.bulkImportMinimumRows = bulkImportMinimumRows
            self.bulkActionMinimumRows = bulkActionMinimumRows
            self.logLevel = logLevel
        }

        /// Every setting at its default.
        public static let `default` = Configuration()
    }
}
