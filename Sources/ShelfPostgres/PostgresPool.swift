#if PostgreSQL
    internal import Foundation
    internal import Logging
    package import PostgresNIO
    internal import ShelfStore
    internal import Synchronization

    /// The connection pool of one PostgreSQL store: a `PostgresClient` and the task that runs
    /// it, with reads and transactions whose failures come out as `StoreError`s.
    ///
    /// The pool's background work runs in a task this object owns, from `init` until `close()`
    /// (or until the object is released).
    package final class PostgresPool: Sendable {
        package let location: PostgresLocation
        let client: PostgresClient
        private let runner: Mutex<Task<Void, Never>?>

        package init(location: PostgresLocation) {
            self.location = location
            let client = PostgresClient(
                configuration: location.clientConfiguration(), backgroundLogger: Logger.silent)
            self.client = client
            runner = Mutex(Task { await client.run() })
        }

        deinit {
            runner.withLock { $0?.cancel() }
        }

        /// Ends the pool's connections and its task. Safe to call more than once.
        package func close() async {
            guard
                let task = runner.withLock({ task in
                    defer { task = nil }
                    return task
                })
            else { return }
            task.cancel()
            await task.value
        }

        /// True once `close()` has run: every call then fails.
        private var isClosed: Bool { runner.withLock { $0 == nil } }

        private var closedError: StoreError {
            StoreError(.database, "the store at \(location.server)/\(location.database) is closed; open it again")
        }

        /// Throws unless the pool is open.
        package func checkOpen() throws {
            if isClosed { throw closedError }
        }

        /// Runs `body` on a connection of the pool, outside any transaction.
        package func read<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
            if isClosed { throw closedError }
            do {
                return try await client.withConnection { connection in try await body(connection) }
            } catch {
                if isClosed { throw closedError }
                throw StoreError(postgres: error, at: location)
            }
        }

        /// Runs `body` in one transaction on a connection of the pool: it commits when `body`
        /// returns and rolls back when it throws. `isolation` is the level to BEGIN with.
        package func transaction<T: Sendable>(
            isolation: String = "READ COMMITTED", subject: (@Sendable () -> String?)? = nil,
            _ body: (PostgresConnection) async throws -> T
        ) async throws -> T {
            if isClosed { throw closedError }
            do {
                return try await client.withConnection { connection in
                    try await connection.query(
                        PostgresQuery(unsafeSQL: "BEGIN ISOLATION LEVEL \(isolation)"), logger: .silent)
                    do {
                        let value = try await body(connection)
                        try await connection.query("COMMIT", logger: .silent)
                        return value
                    } catch {
                        _ = try? await connection.query("ROLLBACK", logger: .silent)
                        throw error
                    }
                }
            } catch let error as SubjectError {
                throw StoreError(postgres: error.error, at: location, subject: error.subject)
            } catch {
                if isClosed { throw closedError }
                throw StoreError(postgres: error, at: location, subject: subject?())
            }
        }
    }

    /// A failure while writing one element of a batch: names the element for the message.
    package struct SubjectError: Error {
        package let subject: String?
        package let error: any Error

        package init(subject: String?, error: any Error) {
            self.subject = subject
            self.error = error
        }
    }

    extension PostgresRowSequence {
        /// Every row, decoded as `T`, in order.
        func all<each T: PostgresDecodable>(_ types: (repeat each T).Type) async throws -> [(repeat each T)] {
            var result: [(repeat each T)] = []
            for try await row in self { result.append(try row.decode((repeat each T).self)) }
            return result
        }
    }
#endif
