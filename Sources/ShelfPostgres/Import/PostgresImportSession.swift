#if PostgreSQL
    package import Foundation
    internal import Logging
    internal import PostgresNIO
    package import ShelfStore

    /// The rows of one import into a PostgreSQL store: the twin of the SQLite store's
    /// `ImportStaging`.
    ///
    /// The session has a connection of its own for its whole life. Rows go into two TEMP
    /// tables of that connection (by `COPY`, a batch at a time), which takes no lock on the
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
        private var pending: [Pending] = []
        private var nextSeq: Int64 = 0
        private var closed = false

        /// Rows kept in memory before they go to the TEMP tables in one COPY.
        static let batchSize = 2048

        private enum Pending {
            case user(Int64, ImportedUser, Data)
            case item(Int64, ImportedItem, Data)
            case reject(Int64, ImportReject)
        }

        /// Opens the session's connection and its TEMP tables.
        package init(place: PostgresLocation, table: ImportTable) throws {
            self.place = place
            self.table = table
            let configuration = try place.connectionConfiguration()
            let columns =
                switch table {
                case .users: "id bigint, name text, email text, created_at bigint"
                case .items:
                    """
                    id bigint, owner_id bigint, owner_email text, title text, notes text, status text,
                    priority bigint, created_at bigint, updated_at bigint
                    """
                }
            connection = try runBlocking {
                let connection: PostgresConnection
                do {
                    connection = try await PostgresConnection.connect(
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
                            field text, value text, reason text NOT NULL, record bytea NOT NULL)
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
            pending = []
            let connection = self.connection
            // Closing the connection drops its TEMP tables.
            _ = try? runBlocking { try await connection.close() }
        }

        // MARK: Staging

        package func stage(_ user: ImportedUser, record: Data) throws {
            nextSeq += 1
            pending.append(.user(nextSeq, user, record))
            if pending.count >= Self.batchSize { try flush() }
        }

        package func stage(_ item: ImportedItem, record: Data) throws {
            nextSeq += 1
            pending.append(.item(nextSeq, item, record))
            if pending.count >= Self.batchSize { try flush() }
        }

        package func reject(
            record: Data, line: Int?, column: Int?, field: String?, value: String?, reason: String
        ) throws {
            nextSeq += 1
            pending.append(
                .reject(
                    nextSeq,
                    ImportReject(
                        seq: nextSeq, record: record, placed: true, line: line, column: column, field: field,
                        value: value, reason: reason)))
            if pending.count >= Self.batchSize { try flush() }
        }

        package func userID(email: String) throws -> Int64? {
            try scalar(
                "SELECT id FROM users WHERE shelf_fold(email) COLLATE \"C\" = shelf_fold(\(email)) COLLATE \"C\"")
        }

        /// Writes the pending rows to the TEMP tables: one COPY per table.
        func flush() throws {
            guard !pending.isEmpty else { return }
            let batch = pending
            pending.removeAll(keepingCapacity: true)
            var rows = CopyText()
            var rejects = CopyText()
            for entry in batch {
                switch entry {
                case .user(let seq, let user, let record):
                    var refusal: String?
                    rows.row {
                        $0.integer(seq)
                        $0.integer(user.id)
                        $0.text(user.name, field: "name", refusal: &refusal)
                        $0.text(user.email, field: "email", refusal: &refusal)
                        $0.integer(user.createdAt)
                        $0.text(refusal)
                        $0.bytes(record)
                    }
                case .item(let seq, let item, let record):
                    var refusal: String?
                    var ownerID: Int64?
                    var ownerEmail: String?
                    switch item.owner {
                    case .id(let id): ownerID = id
                    case .email(let email): ownerEmail = email
                    }
                    rows.row {
                        $0.integer(seq)
                        $0.integer(item.id)
                        $0.integer(ownerID)
                        $0.text(ownerEmail, field: "user", refusal: &refusal)
                        $0.text(item.title, field: "title", refusal: &refusal)
                        $0.text(item.notes, field: "notes", refusal: &refusal)
                        $0.text(item.status.rawValue)
                        $0.integer(Int64(item.priority))
                        $0.integer(item.createdAt)
                        $0.integer(item.updatedAt)
                        $0.text(refusal)
                        $0.bytes(record)
                    }
                case .reject(let seq, let reject):
                    rejects.row {
                        $0.integer(seq)
                        $0.text("t")
                        $0.integer(reject.line.map(Int64.init))
                        $0.integer(reject.column.map(Int64.init))
                        $0.text(reject.field.map(CopyText.withoutNUL))
                        $0.text(reject.value.map(CopyText.withoutNUL))
                        $0.text(CopyText.withoutNUL(reject.reason))
                        $0.bytes(reject.record)
                    }
                }
            }
            let connection = self.connection
            let place = self.place
            let rowData = rows.data
            let rejectData = rejects.data
            try runBlocking {
                do {
                    if !rowData.isEmpty {
                        try await connection.copyFrom(table: "shelf_stage", logger: .silent) { writer in
                            try await writer.write(ByteBuffer(string: rowData))
                        }
                    }
                    if !rejectData.isEmpty {
                        try await connection.copyFrom(table: "shelf_stage_rejects", logger: .silent) { writer in
                            try await writer.write(ByteBuffer(string: rejectData))
                        }
                    }
                } catch {
                    throw StoreError(postgres: error, at: place)
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
            return try runBlocking { try await connection.query(sql, logger: .silent).collect() }
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

    /// Rows in the text format of COPY: tab-separated fields, `\N` for NULL, backslash escapes.
    struct CopyText {
        private(set) var data = ""

        struct Row {
            fileprivate var fields: [String] = []

            mutating func integer(_ value: Int64?) {
                fields.append(value.map(String.init) ?? "\\N")
            }

            mutating func text(_ value: String?) {
                fields.append(value.map(CopyText.escaped) ?? "\\N")
            }

            /// A text field that PostgreSQL cannot store when it holds NUL: the NULs are removed
            /// and `refusal` names the first such field, so `apply` refuses the row.
            mutating func text(_ value: String?, field: String, refusal: inout String?) {
                guard let value, value.utf8.contains(0) else { return text(value) }
                if refusal == nil { refusal = field }
                text(CopyText.withoutNUL(value))
            }

            mutating func bytes(_ value: Data) {
                var hex = "\\\\x"
                hex.reserveCapacity(3 + value.count * 2)
                let digits = Array("0123456789abcdef".utf8)
                var scalars: [UInt8] = []
                scalars.reserveCapacity(value.count * 2)
                for byte in value {
                    scalars.append(digits[Int(byte >> 4)])
                    scalars.append(digits[Int(byte & 0x0F)])
                }
                hex += String(decoding: scalars, as: UTF8.self)
                fields.append(hex)
            }
        }

        mutating func row(_ build: (inout Row) -> Void) {
            var row = Row()
            build(&row)
            data += row.fields.joined(separator: "\t")
            data += "\n"
        }

        static func escaped(_ text: String) -> String {
            guard text.utf8.contains(where: { $0 == 0x5C || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) else {
                return text
            }
            var out = ""
            out.reserveCapacity(text.utf8.count + 8)
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\\": out += "\\\\"
                case "\t": out += "\\t"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out
        }

        static func withoutNUL(_ text: String) -> String {
            guard text.utf8.contains(0) else { return text }
            return String(text.unicodeScalars.filter { $0 != "\0" }.map(Character.init))
        }
    }
#endif
