internal import ShelfSQLite
internal import ShelfStore

extension StoreError {
    /// Translates a SQLite failure into the store's terms. `subject` names what was being
    /// written ("item 3 of 10"), for messages about batches.
    init(_ error: DatabaseError, subject: String? = nil) {
        let prefix = subject.map { "\($0): " } ?? ""
        switch (error.code, error.extendedCode) {
        case _ where error.isDatabaseClosed:
            self.init(.closed, "\(prefix)the store \(error.message); open it again to use it")
        case (_, DatabaseError.uniqueConstraint) where error.message.contains("users.email"):
            self.init(
                .duplicateEmail, "\(prefix)a user with that email already exists; use another email or update that user"
            )
        case (_, DatabaseError.foreignKeyConstraint):
            self.init(.unknownUser, "\(prefix)the user does not exist; create the user first or pick an existing one")
        case (_, DatabaseError.checkConstraint):
            self.init(.invalidValue, prefix + SchemaRule.text(in: error.message))
        case (_, DatabaseError.notNullConstraint):
            self.init(.invalidValue, "\(prefix)a required field is missing (\(error.message))")
        case (_, DatabaseError.databaseMoved):
            self.init(.fileReplaced, prefix + error.message)
        case (DatabaseError.busy, _), (DatabaseError.locked, _):
            self.init(.busy, "\(prefix)the database is locked by another process (\(error.message))")
        case (DatabaseError.corrupt, _), (DatabaseError.notADatabase, _):
            self.init(
                .corrupt,
                "\(prefix)the file is damaged or not a shelf database (\(error.message)); check the path "
                    + "or restore the file from a backup", hint: .checkDatabaseLocation)
        default:
            // The statement is for the log (`--verbose`), not the message a person reads.
            if error.sql != nil { Diagnostics.debug("\(prefix)\(error.description)") }
            self.init(.database, "\(prefix)\(error.summary)")
            if error.code == DatabaseError.full { markDiskFull() }
        }
    }

    /// `error` in the store's terms, whatever it is.
    static func translatingAny(_ error: any Error) -> StoreError {
        switch error {
        case let error as StoreError: error
        case let error as DatabaseError: StoreError(error)
        default: StoreError(.database, String(describing: error))
        }
    }

    /// Runs `body`, translating database failures into `StoreError`.
    static func translating<T>(subject: @autoclosure () -> String? = nil, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw StoreError(error, subject: subject())
        }
    }
}

extension Database {
    /// `write(_:)` with every failure in the store's terms, including those of BEGIN and
    /// COMMIT themselves (a lock held by another process, a full disk).
    func storeWrite<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        do {
            return try await write(body)
        } catch {
            throw StoreError.translatingAny(error)
        }
    }

    /// `read(_:)` with every failure in the store's terms; `transaction` as `read`'s.
    func storeRead<T: Sendable>(
        transaction: Bool = true, _ body: @escaping @Sendable (Connection) throws -> T
    ) async throws -> T {
        do {
            return try await read(transaction: transaction, body)
        } catch let error as CancellationError {
            throw error  // the caller's task was cancelled and the read interrupted
        } catch {
            throw StoreError.translatingAny(error)
        }
    }
}
