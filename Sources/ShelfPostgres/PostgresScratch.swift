#if PostgreSQL
    internal import Foundation
    internal import PostgresNIO
    internal import ShelfStore

    /// Scratch databases for tests and benchmarks: each gets a fresh, uniquely named database
    /// of its own on a shared server, so runs never share data.
    package enum PostgresScratch {
        /// Creates an empty database `shelf_test_<random>` on the server `serverURL` names (its
        /// user must be allowed to create databases) and returns its URL, password included.
        package static func create(serverURL: String) async throws -> String {
            let server = try PostgresLocation(url: serverURL)
            let name = "shelf_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            try await PostgresBackend.withConnection(to: server) { connection in
                _ = try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: .silent)
            }
            return url(of: server.with(database: name))
        }

        /// Drops the database `url` names, ending the connections still open to it. Connects
        /// to the server's `postgres` database to do it.
        package static func drop(url: String) async throws {
            let target = try PostgresLocation(url: url)
            let quoted = "\"" + target.database.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            try await PostgresBackend.withConnection(to: target.with(database: "postgres")) { connection in
                _ = try await connection.query(
                    PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(quoted) WITH (FORCE)"), logger: .silent)
            }
        }

        /// `location` as a URL, password included.
        static func url(of location: PostgresLocation) -> String {
            var components = URLComponents()
            components.scheme = "postgres"
            components.user = location.user
            components.password = location.password
            components.host = location.host.contains(":") ? "[\(location.host)]" : location.host
            components.port = location.port
            components.path = "/" + location.database
            if location.tlsMode != .disable {
                components.queryItems = [URLQueryItem(name: "sslmode", value: location.tlsMode.rawValue)]
            }
            return components.string ?? ""
        }
    }
#endif
