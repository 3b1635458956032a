import Foundation
import ShelfSQLiteBackend
import ShelfStore
import Testing

#if PostgreSQL
    import ShelfPostgres
    import ShelfPostgresTesting
#endif

/// A backend the conformance suite runs on. Every test of the suite takes one as its argument,
/// so the same test code proves the same behaviour on each.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// The backends this run can test: SQLite always; PostgreSQL when the package was built
    /// with the PostgreSQL trait and `SHELF_TEST_POSTGRES` names a server.
    static var available: [Backend] {
        PostgresServer.url == nil ? [.sqlite] : [.sqlite, .postgres]
    }

    /// A fresh, empty store on this backend; `body` runs with it, then it is closed and
    /// deleted.
    func withStore<T>(_ body: (Store) async throws -> T) async throws -> T {
        switch self {
        case .sqlite:
            let store = try Store.temporary()
            return try await body(store)
        case .postgres:
            #if PostgreSQL
                guard let server = PostgresServer.url else { throw SkipReason.noServer }
                return try await PostgresScratch.withDatabase(serverURL: server) { url in
                    let store = try await Store.open(postgres: url)
                    let result: T
                    do {
                        result = try await body(store)
                    } catch {
                        await store.close()
                        throw error
                    }
                    await store.close()
                    return result
                }
            #else
                throw SkipReason.noServer
            #endif
        }
    }

    private enum SkipReason: Error {
        case noServer
    }
}

/// The PostgreSQL server the tests use: `SHELF_TEST_POSTGRES` names it as a URL, e.g.
/// `postgres://postgres:secret@127.0.0.1:5432/postgres`, for a user that may create databases.
/// Without it, or in a build without the PostgreSQL trait, only SQLite is tested.
enum PostgresServer {
    static var url: String? {
        #if PostgreSQL
            let value = ProcessInfo.processInfo.environment["SHELF_TEST_POSTGRES"] ?? ""
            return value.isEmpty ? nil : value
        #else
            return nil
        #endif
    }
}

@Suite("PostgreSQL server for the conformance suite")
struct PostgresServerTests {
    /// One line in the output says the PostgreSQL half of the suite was skipped, and why.
    @Test(
        "A PostgreSQL store opens on the configured server",
        .enabled(
            if: PostgresServer.url != nil,
            "PostgreSQL tests skipped: build with --traits PostgreSQL and set SHELF_TEST_POSTGRES=postgres://USER:PASSWORD@HOST:PORT/DATABASE to run them"
        ))
    func opens() async throws {
        try await Backend.postgres.withStore { (store: Store) async throws in
            let users = try await store.users.users()
            #expect(users.isEmpty)
        }
        #if PostgreSQL
            // A URL with a password (of a role made for the test) is shown without it.
            let server = try #require(PostgresServer.url)
            try await PostgresScratch.withDatabase(serverURL: server) { database in
                try await PostgresScratch.withPasswordUser(databaseURL: database) { url in
                    let store = try await Store.open(postgres: url)
                    let password = try #require(try PostgresLocation(url: url).password)
                    #expect(
                        store.location.contains(":***@") && !store.location.contains(password),
                        "no password in \(store.location)")
                    await store.close()
                }
            }
        #endif
    }
}

/// Waits until `condition` holds, checking every few milliseconds, at most `timeout`.
func eventually(timeout: Duration = .seconds(120), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return try await condition()
}

extension Result {
    var success: Success? {
        if case .success(let value) = self { return value }
        return nil
    }
}
