#if PostgreSQL
    internal import Foundation
    internal import PostgresNIO
    internal import ShelfStore

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
        /// is an older shelf backup.
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
                try await copy(into: temporary)
                try Store.makeDurable(temporary)
                // Interrupted meanwhile (Ctrl-C): the old file stays.
                try Task.checkCancellation()
                guard rename(temporary, path) == 0 else {
                    throw StoreError(
                        .database,
                        "cannot move the backup into place at \(path): \(String(cString: strerror(errno)))")
                }
                try? Store.makeDurable(folder.isEmpty ? "." : folder)
            } catch {
                for suffix in ["", "-wal", "-shm", "-journal"] { unlink(temporary + suffix) }
                if let error = error as? StoreError {
                    throw StoreError(error.code, "cannot write the backup \(path): \(error.message)")
                }
                throw error
            }
        }

        /// One row of the snapshot, users first.
        private enum SnapshotRow: Sendable {
            case user(ImportedUser)
            case item(ImportedItem)
        }

        /// Copies the snapshot into a new SQLite store at `file`, through its import sessions
        /// (which block, so on a thread of their own), fed by a task reading the snapshot.
        private func copy(into file: String) async throws {
            let channel = RowChannel<SnapshotRow>(capacity: Self.streamCapacity)
            let pool = self.pool
            let reader = Task {
                do {
                    try await pool.transaction(isolation: "REPEATABLE READ READ ONLY") { connection in
                        let users = try await connection.query(
                            "SELECT id, name, email, created_at FROM users ORDER BY id", logger: .silent)
                        for try await (id, name, email, created) in users.decode((Int64, String, String, Int64).self) {
                            let user = ImportedUser(id: id, name: name, email: email, createdAt: created)
                            guard await channel.send(.user(user)) else { return }
                        }
                        let items = try await connection.query(
                            """
                            SELECT id, user_id, title, notes, status, priority, created_at, updated_at, version
                            FROM items ORDER BY id
                            """, logger: .silent)
                        for try await (id, owner, title, notes, status, priority, created, updated, version)
                            in items.decode((Int64, Int64, String, String?, String, Int64, Int64, Int64, Int64).self)
                        {
                            let item = ImportedItem(
                                id: id, owner: .id(owner), title: title, notes: notes,
                                status: Item.Status(rawValue: status) ?? .open, priority: Int(priority),
                                createdAt: created, updatedAt: updated, version: version)
                            guard await channel.send(.item(item)) else { return }
                        }
                    }
                    channel.finish(throwing: nil)
                } catch {
                    channel.finish(throwing: error)
                }
            }
            let written: Result<Void, any Error> = await withCheckedContinuation { continuation in
                let thread = Thread {
                    continuation.resume(returning: Result { try Self.write(channel, into: file) })
                }
                thread.start()
            }
            channel.stop()
            await reader.value
            try written.get()
        }

        /// Writes the rows of `channel` into a new SQLite store at `file`; the store is closed
        /// when this returns. Blocks: runs on a thread.
        private static func write(_ channel: RowChannel<SnapshotRow>, into file: String) throws {
            let store = try Store(path: file)
            var session = try store.makeImportSession(table: .users)
            var table = ImportTable.users
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
                    }
                }
            }
            try apply()
        }
    }
#endif
