#if PostgreSQL
    internal import Foundation
    package import PostgresNIO
    internal import ShelfStore

    /// Where a PostgreSQL shelf lives, read from a URL such as
    /// `postgres://ann:secret@db.example.com:5432/shelf?sslmode=require`.
    ///
    /// - The scheme is `postgres` or `postgresql`.
    /// - User, password and database are percent-decoded; a malformed escape (one that is not
    ///   `%` and two hex digits, or bytes that are not UTF-8) is an error. The user is required
    ///   (there is no operating-system user to fall back on in a URL); the password may be left
    ///   out; the database is required too (unlike `psql`, no default: opening migrates the
    ///   database, and migrating the `postgres` maintenance database by accident must not
    ///   happen).
    /// - No fragment (`#…`), no empty option (`?&`, a trailing `&`), no option twice.
    /// - The port defaults to 5432. An IPv6 host is written in brackets: `[::1]`.
    /// - `sslmode` is `disable` (the default: no TLS, fit for a server on this machine or a
    ///   private network), `prefer` (TLS when the server offers it) or `require` (TLS or fail;
    ///   the certificate is checked against the system's trust roots). Other query items are
    ///   refused, so a typo does not pass unnoticed.
    package struct PostgresLocation: Sendable, Hashable {
        /// How a connection uses TLS.
        package enum TLSMode: String, Sendable, Hashable {
            case disable, prefer, require
        }

        package var host: String
        package var port: Int
        package var user: String
        package var password: String?
        package var database: String
        package var tlsMode: TLSMode

        /// How long a statement waits for a lock another session holds (`lock_timeout`) before
        /// it fails; `WriteTimeout.defaultDuration` unless changed (`Store.Configuration`).
        package var lockTimeout: Duration = WriteTimeout.defaultDuration

        /// The `application_name` of Shelf's connections, which `pg_stat_activity` shows and
        /// other sessions' lock messages name: "shelf" in the `shelf` program, "shelf (NAME)" in
        /// another program NAME.
        package static let applicationName: String = {
            let program = ProcessInfo.processInfo.processName
            let name = program == "shelf" ? "shelf" : "shelf (\(program))"
            // PostgreSQL keeps 63 bytes of it.
            return String(decoding: Array(name.utf8.prefix(60)), as: UTF8.self)
        }()

        /// The settings every connection of Shelf starts with: its name, and its lock timeout.
        var startupParameters: [(String, String)] {
            let milliseconds =
                lockTimeout.components.seconds * 1000
                + lockTimeout.components.attoseconds / 1_000_000_000_000_000
            return [("application_name", Self.applicationName), ("lock_timeout", "\(max(1, milliseconds))ms")]
        }

        /// Parses `url`.
        /// - Throws: `StoreError` (`.invalidValue`) saying what is wrong and showing the
        ///   expected shape; the message never repeats the password.
        package init(url: String) throws {
            let shape = "write it as postgres://USER:PASSWORD@HOST:PORT/DATABASE"
            guard let components = URLComponents(string: url) else {
                throw StoreError(
                    .invalidValue,
                    "\(StoreLocation.redacted(url)) is not a valid URL; \(shape) (percent-encode @ : / in them)")
            }
            guard let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql" else {
                throw StoreError(
                    .invalidValue,
                    "\(StoreLocation.redacted(url)) is not a PostgreSQL URL (it must start with postgres:// or postgresql://); "
                        + shape)
            }
            guard let host = components.host, !host.isEmpty else {
                throw StoreError(.invalidValue, "\(StoreLocation.redacted(url)) names no server host; \(shape)")
            }
            let invalid = StoreError(
                .invalidValue,
                "\(StoreLocation.redacted(url)) is not a valid URL: it has a malformed percent escape "
                    + "(each % must start %XX, XX two hex digits of UTF-8); \(shape)")
            // The decoded parts are read from the encoded ones: URLComponents turns an escape that
            // does not decode into nothing, which would silently fall back to a default.
            func decoded(_ part: String?) throws -> String? {
                guard let part else { return nil }
                guard let text = part.removingPercentEncoding else { throw invalid }
                return text
            }
            guard let user = try decoded(components.percentEncodedUser), !user.isEmpty else {
                throw StoreError(.invalidValue, "\(StoreLocation.redacted(url)) names no user; \(shape)")
            }
            let password = try decoded(components.percentEncodedPassword)
            guard var database = try decoded(components.percentEncodedPath) else { throw invalid }
            if database.hasPrefix("/") { database.removeFirst() }
            if database.isEmpty {
                throw StoreError(
                    .invalidValue,
                    "\(StoreLocation.redacted(url)) names no database; "
                        + "name the database: postgres://USER:PASSWORD@HOST:PORT/DATABASE")
            }
            if database.contains("/") {
                throw StoreError(
                    .invalidValue,
                    "\(StoreLocation.redacted(url)) has the path /\(database); the path must be one database name; \(shape)"
                )
            }
            if components.fragment != nil {
                throw StoreError(
                    .invalidValue,
                    "\(StoreLocation.redacted(url)) has a fragment (#…), which a PostgreSQL URL does not take; \(shape)"
                )
            }
            if let query = components.percentEncodedQuery {
                let options = query.split(separator: "&", omittingEmptySubsequences: false)
                if options.contains(where: \.isEmpty) {
                    throw StoreError(
                        .invalidValue,
                        "\(StoreLocation.redacted(url)) has an empty option (a stray ? or &); "
                            + "the only option is sslmode=disable|prefer|require")
                }
                let names = options.map { $0.split(separator: "=", maxSplits: 1).first.map(String.init) ?? "" }
                if Set(names).count != names.count {
                    throw StoreError(
                        .invalidValue, "\(StoreLocation.redacted(url)) gives an option twice; give sslmode once")
                }
            }
            var tlsMode = TLSMode.disable
            for item in components.queryItems ?? [] {
                guard item.name == "sslmode" else {
                    throw StoreError(
                        .invalidValue,
                        "\(StoreLocation.redacted(url)) has the unknown option \(item.name); the only option is "
                            + "sslmode=disable|prefer|require")
                }
                guard let value = item.value, let mode = TLSMode(rawValue: value) else {
                    throw StoreError(
                        .invalidValue,
                        "\(StoreLocation.redacted(url)) has sslmode=\(item.value ?? ""); use sslmode=disable, prefer or require"
                    )
                }
                tlsMode = mode
            }
            if let port = components.port, !(1...65535).contains(port) {
                throw StoreError(
                    .invalidValue, "\(StoreLocation.redacted(url)) has the port \(port); a port is 1 to 65535")
            }
            // URLComponents keeps IPv6 brackets in `host`; the socket wants the bare address.
            var bareHost = host
            if bareHost.hasPrefix("["), bareHost.hasSuffix("]") { bareHost = String(bareHost.dropFirst().dropLast()) }
            self.host = bareHost.removingPercentEncoding ?? bareHost
            self.port = components.port ?? 5432
            self.user = user
            self.password = password
            self.database = database
            self.tlsMode = tlsMode
        }

        /// "host:port", for messages.
        package var server: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

        /// The same server and credentials, another database.
        package func with(database: String) -> PostgresLocation {
            var copy = self
            copy.database = database
            return copy
        }

        /// The connection settings for this location.
        package func connectionConfiguration() throws -> PostgresConnection.Configuration {
            let tls: PostgresConnection.Configuration.TLS
            switch tlsMode {
            case .disable: tls = .disable
            case .prefer: tls = .prefer(try makeTLSContext())
            case .require: tls = .require(try makeTLSContext())
            }
            var configuration = PostgresConnection.Configuration(
                host: host, port: port, username: user, password: password, database: database, tls: tls)
            configuration.options.connectTimeout = .seconds(10)
            configuration.options.additionalStartupParameters = startupParameters
            return configuration
        }

        /// How many connections the store's pool holds at most. Few: a shelf makes short
        /// queries, and many stores may share one server.
        package var maximumConnections: Int { 4 }

        /// The pool's settings for this location.
        package func clientConfiguration() -> PostgresClient.Configuration {
            let tls: PostgresClient.Configuration.TLS
            switch tlsMode {
            case .disable: tls = .disable
            case .prefer: tls = .prefer(.makeClientConfiguration())
            case .require: tls = .require(.makeClientConfiguration())
            }
            var configuration = PostgresClient.Configuration(
                host: host, port: port, username: user, password: password, database: database, tls: tls)
            configuration.options.connectTimeout = .seconds(10)
            configuration.options.additionalStartupParameters = startupParameters
            configuration.options.maximumConnections = maximumConnections
            // One connection stays open: without it every release starts an idle timer (and
            // a lease after a pause reconnects), which cost pages about 20 % against a plain
            // connection in `shelf-benchmarks store --backend postgres`.
            configuration.options.minimumConnections = 1
            return configuration
        }

        private func makeTLSContext() throws -> NIOSSLContext {
            do {
                return try NIOSSLContext(configuration: .makeClientConfiguration())
            } catch {
                throw StoreError(.database, "cannot set up TLS for \(server): \(error)")
            }
        }
    }
#endif
