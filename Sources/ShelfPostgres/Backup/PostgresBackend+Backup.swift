#if PostgreSQL
    internal import Foundation
    internal import PostgresNIO
    internal import ShelfStore
    internal import ShelfSQLiteBackend

    #if canImport(Glibc)
        internal import Glibc
    #endif

    extension PostgresBackend {
        /// Writes the store, as one consistent snapshot (a REPEATABLE READ READ ONLY
        /// transaction), into a new SQLite shelf file at `path` that `shelf --db PATH` opens:
        /// users and items with their IDs and times. Other clients go on writing meanwhile.
        ///
        /// The same destination rules as a SQLite store's backup: the copy is written beside
        /// `path`, flushed, then renamed over it; an existing `path` is replaced only when it
        /// is an older shelf backup. The file is a single file (no -wal or -shm), as a SQLite
        /// store's backup is.
        ///
        /// Items' versions start again at 1 in the copy: the SQLite store's API has no way yet
        /// to write a stored version.
        package func backup(to path: String) async throws {
            try Store.checkBackupDestination(path, source: nil)
            let folder = (path as NSString).deletingLastPathComponent
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder.isEmpty ? "." : folder, isDirectory: &isFolder),
                isFolder.boolValue
            else {
                throw StoreError(
                    .database, "cannot write the backup \(path): the folder \(folder) does not exist; create it first")
            }
            let temporary =
                (folder.isEmpty ? "." : folder)
                + "/.\((path as NSString).lastPathComponent).backup-\(UUID().uuidString)"
            do {
                defer { for suffix in ["", "-wal", "-shm", "-journal"] { unlink(temporary + suffix) } }
                let copy = try await copy(into: temporary)
                // Interrupted meanwhile (Ctrl-C): the old file stays.
                try Task.checkCancellation()
                // The copy is a WAL store, whose -wal and -shm would come back beside `path`
                // whenever it is opened read-only: its own backup (VACUUM INTO) writes it as one
                // plain file, flushed, then renamed over `path`, as a SQLite store's backup is.
                try await copy.backup(to: path)
            } catch {
                if let error = error as? StoreError {
                    if error.message.hasPrefix("cannot write the backup") { throw error }
                    let outcome = error.isLostConnection ? "; nothing was written (\(path) is as it was)" : ""
                    throw StoreError(error.code, "cannot write the backup \(path): \(error.message)\(outcome)")
                }
                throw error
            }
        }

        /// One row of the snapshot, users first, then items, then all saved views at once.
        private enum SnapshotRow: Sendable {
            case user(ImportedUser)
            case item(ImportedItem)
            case views([SavedView])
        }

        /// Copies the snapshot into a new SQLite store at `file`, through its import sessions
        /// (which block, so on a thread of their own), fed by a task reading the snapshot.
        /// Returns that store.
        private func copy(into file: String) async throws -> Store {
            let channel = RowChannel<SnapshotRow>(capacity: Self.streamCapacity)
            let pool = self.pool
            let place = self.place
            let reader = Task {
                do {
                    try await pool.transaction(isolation: "REPEATABLE READ READ ONLY") { connection in
                        // In pages, each read whole (see `stream`): a lost connection then ends
                        // the read with an error, never the process.
                        let limit = Int64(Self.pageSize)
                        let usersDone = try await Self.readPages(
                            on: connection, at: place,
                            page: { (last: ImportedUser?) in
                                """
                                SELECT id, name, email, created_at FROM users WHERE id > \(last?.id ?? Int64.min)
                                ORDER BY id LIMIT \(limit)
                                """
                            },
                            decode: { row in
                                let (id, name, email, created) = try row.decode((Int64, String, String, Int64).self)
                                return ImportedUser(id: id, name: name, email: email, createdAt: created)
                            }, send: { await channel.send(.user($0)) })
                        guard usersDone else { return }
                        _ = try await Self.readPages(
                            on: connection, at: place,
                            page: { (last: ImportedItem?) in
                                """
                                SELECT id, user_id, title, notes, status, priority, created_at, updated_at, version
                                FROM items WHERE id > \(last?.id ?? Int64.min) ORDER BY id LIMIT \(limit)
                                """
                            },
                            decode: { row in
                                let (id, owner, title, notes, status, priority, created, updated, version) =
                                    try row.decode(
                                        (Int64, Int64, String, String?, String, Int64, Int64, Int64, Int64).self)
                                return ImportedItem(
                                    id: id, owner: .id(owner), title: title, notes: notes,
                                    status: Item.Status(rawValue: status) ?? .open, priority: Int(priority),
                                    createdAt: created, updatedAt: updated, version: version)
                            }, send: { await channel.send(.item($0)) })
                        let views = try await PostgresSavedViewRepository.views(on: connection)
                        _ = await channel.send(.views(views))
                    }
                    channel.finish(throwing: nil)
                } catch {
                    channel.finish(throwing: error)
                }
            }
            let written: Result<Store, any Error> = await withCheckedContinuation { continuation in
                let thread = Thread {
                    continuation.resume(returning: Result { try Self.write(channel, into: file) })
                }
                thread.start()
            }
            channel.stop()
            await reader.value
            return try written.get()
        }

        /// Writes the rows of `channel` into a new SQLite store at `file`, and returns it:
        /// users, then items, then saved views (whose owners must be there first). Blocks: runs
        /// on a thread.
        private static func write(_ channel: RowChannel<SnapshotRow>, into file: String) throws -> Store {
            let store = try Store(path: file)
            var session = try store.makeImportSession(table: .users)
            var table = ImportTable.users
            var savedViews: [SavedView] = []
            defer { session.close() }
            let empty = Data()
            func apply() throws {
                _ = try session.apply(
                    mode: .insert, commit: true, continues: false, isCancelled: { false }, willCommit: { true },
                    beforeEnd: { _ in })
                session.close()
            }
            while let batch = try channel.next() {
                for row in batch {
                    switch row {
                    case .user(let user):
                        try session.stage(user, record: empty)
                    case .item(let item):
                        if table == .users {
                            try apply()
                            session = try store.makeImportSession(table: .items)
                            table = .items
                        }
                        try session.stage(item, record: empty)
                    case .views(let views):
                        savedViews += views
                    }
                }
            }
            try apply()
            try store.restoreSavedViews(savedViews)
            return store
        }
    }
#endif
