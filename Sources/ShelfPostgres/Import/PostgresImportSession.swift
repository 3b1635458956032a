#if PostgreSQL
    package import Foundation
    internal import Logging
    internal import PostgresNIO
    internal import ShelfReactive
    package import ShelfStore

    /// The rows of one import into a PostgreSQL store: the twin of the SQLite store's
    /// `ImportStaging`.
    ///
    /// The session has a connection of its own for its whole life. Rows go into two TEMP
    /// tables of that connection (by multi-row INSERTs, a batch at a time), which takes no lock on the
    /// store's tables, so other clients write freely while the input is read; TEMP tables
    /// vanish with the connection, so an import killed at any moment leaves nothing behind.
    /// `apply` then writes every staged row in one transaction: with a few set-based
    /// statements when they give what writing the rows in input order gives, else row by row
    /// (each in a savepoint, which also names the row the store refuses).
    ///
    /// Every method blocks the calling thread (the import's, never a task) while the work runs
    /// in a task. Used by one thread at a time; not `Sendable`. Call `close()` at the end.
    package final class PostgresImportSession: ImportSession {
        let place: PostgresLocation
        let table: ImportTable
        let connection: PostgresConnection
        /// Ends a query the connection's close left waiting (see `CallGuard`).
        private let calls = CallGuard()
        private var queue = ImportStagingQueue(batchSize: PostgresImportSession.batchSize)
        private var closed = false
        /// The most items a `replace` may delete (`limitItemDeletions`).
        var itemLimit: Int?
        /// True when the last `apply` wrote row by row (a row needed it, or the set-based
        /// statements failed on a row); for tests.
        package internal(set) var appliedRowByRow = false

        /// Rows kept in memory before they go to the TEMP tables in one INSERT.
        static let batchSize = 2048

        /// Opens the session's connection and its TEMP tables.
        package init(place: PostgresLocation, table: ImportTable) throws {
            self.place = place
            self.table = table
            let configuration = try place.connectionConfiguration()
            let columns =
                switch table {
                // email_key and owner_key: the email's `Email.key`, computed in Swift (as on
                // SQLite), which every match compares.
                case .users: "id bigint, name text, email text, email_key text COLLATE \"C\", created_at bigint"
                case .items:
                    """
                    id bigint, owner_id bigint, owner_email text, owner_key text COLLATE "C", title text, notes text,
                    status text,
                    priority bigint, created_at bigint, updated_at bigint
                    """
                }
            connection = try BlockingWork.waitFor {
                let connection: PostgresConnection
                do {
                    connection = try await KeepAlive.connect(
                        configuration: configuration, id: 1, logger: Logger.silent)
                } catch {
                    throw StoreError(postgres: error, at: place)
                }
                do {
                    try await connection.query(
                        PostgresQuery(
                            unsafeSQL: """
                                CREATE TEMP TABLE shelf_stage (seq bigint PRIMARY KEY, \(columns),
                                    refusal text, record bytea NOT NULL)
                                """), logger: .silent)
                    try await connection.query(
                        """
                        CREATE TEMP TABLE shelf_stage_rejects (
                            seq bigint PRIMARY KEY, placed boolean NOT NULL, line bigint, "column" bigint,
                            field text, value text, reason text NOT NULL, record bytea NOT NULL,
                            key_id bigint, key_email text, key_email_key text COLLATE "C",
                            unreadable boolean NOT NULL DEFAULT false)
                        """, logger: .silent)
                    try await connection.query(
                        "CREATE TEMP TABLE shelf_import_seen (id bigint PRIMARY KEY)", logger: .silent)
                } catch {
                    try? await connection.close()
                    throw StoreError(postgres: error, at: place)
                }
                return connection
            }
        }

        deinit {
            close()
        }

        package func close() {
            guard !closed else { return }
            closed = true
            queue.discard()
            let connection = self.connection
            // Closing the connection drops its TEMP tables.
            _ = try? BlockingWork.waitFor { try await connection.close() }
        }

        // MARK: Staging

        package func stage(_ user: ImportedUser, record: Data) throws {
            if queue.append(user, record: record) { try flush() }
        }

        package func stage(_ item: ImportedItem, record: Data) throws {
            if queue.append(item, record: record) { try flush() }
        }

        package func reject(
            record: Data, line: Int?, column: Int?, field: String?, value: String?, reason: String,
            key: ImportRowKey
        ) throws {
            let full = queue.appendReject(
                record: record, line: line, column: column, field: field, value: value, reason: reason, key: key)
            if full { try flush() }
        }

        /// The ID of the user with `email`, found as `PostgresUserRepository.user(email:)` finds
        /// them: by `Email.key`; an email stored exactly as given first (of two users whose
        /// emails collide); a user left without a key by ASCII letter case.
        package func userID(email: String) throws -> Int64? {
            let (exact, key) = (StageText.withoutNUL(Email.lookupKey(email)), StageText.withoutNUL(Email.key(email)))
            return try scalar(
                """
                SELECT id FROM users
                WHERE email_key = \(key) OR shelf_fold(email) COLLATE "C" = shelf_fold(\(exact)) COLLATE "C"
                ORDER BY email = \(exact) COLLATE "C" DESC, (email_key = \(key)) IS TRUE DESC LIMIT 1
                """)
        }

        /// Writes the pending rows to the TEMP tables: one multi-row INSERT per table, its
        /// rows bound as one JSON array (`json_to_recordset`), which keeps NULLs NULL.
        ///
        /// Not COPY: postgres-nio 1.33's `copyFrom` never returns when the connection is lost
        /// in the middle (it leaks its continuation), so an import would hang; a plain query
        /// fails with the connection.
        func flush() throws {
            let batch = queue.take()
            guard !batch.isEmpty else { return }
            var users: [StagedUser] = []
            var items: [StagedItem] = []
            var rejects: [StagedReject] = []
            for entry in batch {
                switch entry {
                case .user(let seq, let user, let record):
                    var refusal: String?
                    let name = StageText.checked(user.name, field: "name", refusal: &refusal)
                    let email = StageText.checked(user.email, field: "email", refusal: &refusal)
                    users.append(
                        StagedUser(
                            seq: seq, id: user.id, name: name, email: email,
                            emailKey: StageText.withoutNUL(Email.key(email)), createdAt: user.createdAt,
                            refusal: refusal, record: StageText.hex(record)))
                case .item(let seq, let item, let record):
                    var refusal: String?
                    var ownerID: Int64?
                    var ownerEmail: String?
                    switch item.owner {
                    case .id(let id): ownerID = id
                    case .email(let email): ownerEmail = email
                    }
                    let owner = ownerEmail.map { StageText.checked($0, field: "user", refusal: &refusal) }
                    let title = StageText.checked(item.title, field: "title", refusal: &refusal)
                    let notes = item.notes.map { StageText.checked($0, field: "notes", refusal: &refusal) }
                    items.append(
                        StagedItem(
                            seq: seq, id: item.id, ownerID: ownerID, ownerEmail: owner,
                            ownerKey: owner.map { StageText.withoutNUL(Email.key($0)) }, title: title, notes: notes,
                            status: item.status.rawValue, priority: Int64(item.priority), createdAt: item.createdAt,
                            updatedAt: item.updatedAt, refusal: refusal, record: StageText.hex(record)))
                case .reject(let seq, let reject, let key):
                    rejects.append(
                        StagedReject(
                            seq: seq, line: reject.line.map(Int64.init), column: reject.column.map(Int64.init),
                            field: reject.field.map(StageText.withoutNUL),
                            value: reject.value.map(StageText.withoutNUL),
                            reason: StageText.withoutNUL(reject.reason), record: StageText.hex(reject.record),
                            keyId: key.id, keyEmail: key.email.map(StageText.withoutNUL),
                            keyEmailKey: key.email.map { StageText.withoutNUL(Email.key($0)) },
                            unreadable: key.isUnreadable))
                }
            }
            var statements: [(sql: String, json: String)] = []
            do {
                let encoder = JSONEncoder()
                encoder.keyEncodingStrategy = .convertToSnakeCase
                func json(_ value: some Encodable) throws -> String {
                    String(decoding: try encoder.encode(value), as: UTF8.self)
                }
                if !users.isEmpty {
                    statements.append(
                        (
                            """
                            INSERT INTO shelf_stage (seq, id, name, email, email_key, created_at, refusal, record)
                            SELECT seq, id, name, email, email_key, created_at, refusal, decode(record, 'hex')
                            FROM json_to_recordset($1::json) AS r(seq bigint, id bigint, name text, email text,
                                email_key text, created_at bigint, refusal text, record text)
                            """, try json(users)
                        ))
                }
                if !items.isEmpty {
                    statements.append(
                        (
                            """
                            INSERT INTO shelf_stage (seq, id, owner_id, owner_email, owner_key, title, notes, status,
                                priority, created_at, updated_at, refusal, record)
                            SELECT seq, id, owner_id, owner_email, owner_key, title, notes, status, priority,
                                created_at, updated_at, refusal, decode(record, 'hex')
                            FROM json_to_recordset($1::json) AS r(seq bigint, id bigint, owner_id bigint,
                                owner_email text, owner_key text, title text, notes text, status text, priority bigint,
                                created_at bigint, updated_at bigint, refusal text, record text)
                            """, try json(items)
                        ))
                }
                if !rejects.isEmpty {
                    statements.append(
                        (
                            """
                            INSERT INTO shelf_stage_rejects (seq, placed, line, "column", field, value, reason, record,
                                key_id, key_email, key_email_key, unreadable)
                            SELECT seq, true, line, "column", field, value, reason, decode(record, 'hex'), key_id,
                                key_email, key_email_key, coalesce(unreadable, false)
                            FROM json_to_recordset($1::json) AS r(seq bigint, line bigint, "column" bigint,
                                field text, value text, reason text, record text, key_id bigint, key_email text,
                                key_email_key text, unreadable boolean)
                            """, try json(rejects)
                        ))
                }
            } catch {
                throw StoreError(.database, "cannot stage the import's rows: \(error)")
            }
            for statement in statements {
                var bindings = PostgresBindings()
                bindings.append(statement.json)
                do {
                    _ = try query(PostgresQuery(unsafeSQL: statement.sql, binds: bindings))
                } catch let error as StoreError where error.isLostConnection {
                    throw Self.lost(error)
                }
            }
        }

        // MARK: Reading back

        package func record(seq: Int64) throws -> Data? {
            try flush()
            let rows = try query("SELECT record FROM shelf_stage WHERE seq = \(seq)")
            guard let row = rows.first else { return nil }
            return try row.decode(Data.self)
        }

        package func forEachReject(_ body: (ImportReject) throws -> Bool) throws {
            try flush()
            var after: Int64 = 0
            while true {
                let rows = try query(
                    """
                    SELECT seq, placed, line, "column", field, value, reason, record FROM shelf_stage_rejects
                    WHERE seq > \(after) ORDER BY seq LIMIT 500
                    """)
                if rows.isEmpty { return }
                for row in rows {
                    let (seq, placed, line, column, field, value, reason, record) = try row.decode(
                        (Int64, Bool, Int64?, Int64?, String?, String?, String, Data).self)
                    after = seq
                    let reject = ImportReject(
                        seq: seq, record: record, placed: placed, line: line.map(Int.init),
                        column: column.map(Int.init), field: field, value: value, reason: reason)
                    if !(try body(reject)) { return }
                }
            }
        }

        // MARK: Running SQL on the session's connection

        /// Every row of `sql`, run on the session's connection. Server errors come out as
        /// they are (`PSQLError`), so callers can tell a constraint from a lost connection.
        func rawQuery(_ sql: PostgresQuery) throws -> [PostgresRow] {
            let connection = self.connection
            // A query sent on a connection the server has ended may never answer (postgres-nio
            // 1.33, see `CallGuard`): fail at once when it is known closed, else after a grace.
            if connection.isClosed {
                throw StoreError(.database, StoreError.lostConnection(at: place, cause: "the server closed it"))
            }
            let calls = self.calls
            let place = self.place
            return try BlockingWork.waitFor {
                try await calls.run(on: connection, at: place) { try await $0.query(sql, logger: .silent).collect() }
            }
        }

        /// `rawQuery` with every failure as a `StoreError`.
        func query(_ sql: PostgresQuery) throws -> [PostgresRow] {
            do {
                return try rawQuery(sql)
            } catch {
                throw StoreError(postgres: error, at: place)
            }
        }

        /// The first column of the first row, or nil.
        func scalar(_ sql: PostgresQuery) throws -> Int64? {
            try query(sql).first?.decode(Int64?.self)
        }

        func execute(_ sql: String) throws {
            _ = try query(PostgresQuery(unsafeSQL: sql))
        }
    }

    // One staged row each, as `flush` sends them (in snake case, the JSON keys are the TEMP
    // tables' columns; a nil is left out, which `json_to_recordset` reads as NULL).

    private struct StagedUser: Encodable {
        let seq: Int64
        let id: Int64?
        let name: String
        let email: String
        let emailKey: String
        let createdAt: Int64?
        let refusal: String?
        let record: String
    }

    private struct StagedItem: Encodable {
        let seq: Int64
        let id: Int64?
        let ownerID: Int64?
        let ownerEmail: String?
        let ownerKey: String?
        let title: String
        let notes: String?
        let status: String
        let priority: Int64
        let createdAt: Int64?
        let updatedAt: Int64?
        let refusal: String?
        let record: String
    }

    private struct StagedReject: Encodable {
        let seq: Int64
        let line: Int64?
        let column: Int64?
        let field: String?
        let value: String?
        let reason: String
        let record: String
        let keyId: Int64?
        let keyEmail: String?
        let keyEmailKey: String?
        let unreadable: Bool
    }

    /// Text as the TEMP tables take it.
    enum StageText {
        /// `value` without NUL, which PostgreSQL text cannot hold; `refusal` names the first
        /// field that had one, so `apply` refuses the row.
        static func checked(_ value: String, field: String, refusal: inout String?) -> String {
            guard value.utf8.contains(0) else { return value }
            if refusal == nil { refusal = field }
            return withoutNUL(value)
        }

        static func withoutNUL(_ text: String) -> String {
            guard text.utf8.contains(0) else { return text }
            return String(text.unicodeScalars.filter { $0 != "\0" }.map(Character.init))
        }

        /// The bytes in hex, for `decode(…, 'hex')`.
        static func hex(_ value: Data) -> String {
            let digits = Array("0123456789abcdef".utf8)
            var scalars: [UInt8] = []
            scalars.reserveCapacity(value.count * 2)
            for byte in value {
                scalars.append(digits[Int(byte >> 4)])
                scalars.append(digits[Int(byte & 0x0F)])
            }
            return String(decoding: scalars, as: UTF8.self)
        }
    }
#endif
