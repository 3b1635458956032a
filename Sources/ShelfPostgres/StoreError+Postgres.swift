#if PostgreSQL
    internal import Foundation
    internal import PostgresNIO
    package import ShelfStore
    internal import _ConnectionPoolModule

    #if canImport(Glibc)
        internal import Glibc
    #endif

    extension StoreError {
        /// `error`, thrown by PostgresNIO (or anything else) while talking to the server at
        /// `location`, in the store's terms. `subject` names what was being written ("item 3
        /// of 10"), for messages about batches.
        package init(postgres error: any Error, at location: PostgresLocation, subject: String? = nil) {
            let prefix = subject.map { "\($0): " } ?? ""
            switch error {
            case let error as StoreError:
                self.init(error.code, prefix + error.message, hint: error.hint)
                if error.isServerUnavailable { markServerUnavailable() }
            case let error as PostgresTransactionError:
                let inner = error.beginError ?? error.closureError ?? error.commitError ?? error.rollbackError
                if let inner {
                    self.init(postgres: inner, at: location, subject: subject)
                } else {
                    self.init(.database, "\(prefix)a transaction on \(location.server) failed")
                }
            case let error as PSQLError:
                self.init(psql: error, at: location, prefix: prefix)
            case let error as KeepAliveConnectError where Self.wasDropped(error.underlying):
                // Reached, then reset while connecting (the server ending new sessions, a
                // restart): lost, as a connection lost in the middle of work, not unreachable.
                self.init(
                    .database, prefix + Self.lostConnection(at: location, cause: Self.connectionCause(error.underlying))
                )
            case let error as KeepAliveConnectError:
                self.init(
                    .database,
                    "cannot reach the PostgreSQL server at \(location.server) (\(Self.connectionCause(error.underlying))); "
                        + "check that it runs and the URL", hint: .checkDatabaseLocation)
            case let error as ConnectionPoolError where error == .connectionCreationCircuitBreakerTripped:
                // PostgresClient's pool, once no connection could be made for a while (60 s, its
                // circuit breaker), fails every call at once with this until one can: the server
                // is unreachable, as a refused connection says (it was a 500 "PostgreSQL at …:
                // ConnectionPoolError(…)" to a client, under load in CI).
                self.init(
                    .database,
                    "cannot reach the PostgreSQL server at \(location.server) (no connection to it could be made "
                        + "for a while); check that it runs and the URL", hint: .checkDatabaseLocation)
            case is CancellationError:
                self.init(.database, "\(prefix)the operation on \(location.server) was cancelled")
            default:
                self.init(.database, "\(prefix)PostgreSQL at \(location.server): \(String(reflecting: error))")
            }
            if isLostConnection { markConnectionLost() }
            if isUnreachable || isServerFull { markServerUnavailable() }
        }

        private init(psql error: PSQLError, at location: PostgresLocation, prefix: String) {
            if let info = error.serverInfo, let state = info[.sqlState] {
                let message = info[.message] ?? "no message"
                let constraint = info[.constraintName] ?? ""
                switch state {
                case "23505" where constraint == "user_email_unique" || constraint == "users_by_email_key":
                    self.init(
                        .duplicateEmail,
                        "\(prefix)a user with that email already exists; use another email or update that user")
                case "23505" where Self.sequencedTables[constraint] != nil:
                    // An ID or the change log's seq already taken: its sequence was set back (by
                    // hand, or a restore's setval) behind values it had handed out.
                    let (what, sequence) = Self.sequencedTables[constraint] ?? ("value", "its sequence")
                    let detail = info[.detail].map { " (\($0))" } ?? ""
                    self.init(
                        .database,
                        "\(prefix)the \(what) is already taken\(detail) in the PostgreSQL database "
                            + "\(location.database) on \(location.server); nothing was written. If shelf took it from "
                            + "\(sequence), that sequence was set back behind values it had handed out (by hand, or by a "
                            + "restore): run `shelf migrate` on this database, which moves it past every value ever used"
                    )
                case "23503":
                    self.init(
                        .unknownUser, "\(prefix)the user does not exist; create the user first or pick an existing one")
                case "23514":
                    self.init(.invalidValue, prefix + SchemaRule.text(constraint: constraint, message: message))
                case "23502":
                    self.init(.invalidValue, "\(prefix)a required field is missing (\(message))")
                case "22021", "22P05":
                    self.init(
                        .invalidValue,
                        "\(prefix)PostgreSQL text cannot hold the NUL character (U+0000) (\(message)); remove it")
                case "28P01", "28000":
                    self.init(
                        .database,
                        "authentication failed for user \(location.user) on the PostgreSQL server at \(location.server) "
                            + "(\(message)); check the user and password in the URL", hint: .checkDatabaseLocation)
                case "3D000":
                    self.init(
                        .database,
                        "database \(location.database) does not exist on \(location.server); "
                            + "create it with `createdb \(location.database)`")
                case "40001", "40P01", "55P03":
                    self.init(.busy, "\(prefix)the database is busy with another transaction (\(message)); try again")
                case "54000":
                    // A value too large for a btree index row (about 2,700 bytes) or a tsvector.
                    let what =
                        if message.contains("users_by_name") {
                            "a user's name is too long for the store (\(message)); shorten it"
                        } else if message.contains("items_by") && message.contains("title") {
                            "an item's title is too long for the store (\(message)); shorten it"
                        } else {
                            "a value is too long for the store (\(message)); shorten it"
                        }
                    self.init(.invalidValue, prefix + what)
                case "42P01" where Self.missingShelfTable(message) != nil:
                    // Another program dropped one of shelf's tables (a count table, the change
                    // log): every write of items fails in its trigger, and counts cannot be read.
                    let table = Self.missingShelfTable(message) ?? "a table"
                    self.init(
                        .database,
                        "\(prefix)the table \(table) of the shelf in the PostgreSQL database \(location.database) on "
                            + "\(location.server) is missing (\(message)): another program dropped it, and nothing "
                            + "was changed. Run `shelf migrate` on this database to make it again (shelf counts the "
                            + "items again for the count tables); restore a backup if it was the change log or your data"
                    )
                case "42883" where Self.missingShelfFunction(message) != nil:
                    // Another program dropped a function of shelf's triggers (the log's pruning,
                    // the counts' fold): the writes that call it fail.
                    let function = Self.missingShelfFunction(message) ?? "a function"
                    self.init(
                        .database,
                        "\(prefix)the function \(function) of the shelf in the PostgreSQL database \(location.database) "
                            + "on \(location.server) is missing (\(message)): another program dropped it, and nothing "
                            + "was changed. Run `shelf migrate` on this database to make it again")
                case "57P01", "57P02", "57P03":
                    // The server ended this connection (pg_terminate_backend, a shutdown).
                    self.init(.database, prefix + Self.lostConnection(at: location, cause: message))
                case "53300":
                    self.init(
                        .database,
                        "the PostgreSQL server at \(location.server) has no connection left (\(message)); "
                            + "close other clients or raise max_connections")
                default:
                    self.init(.database, "\(prefix)PostgreSQL error \(state) at \(location.server): \(message)")
                }
                return
            }
            switch error.code {
            case .sslUnsupported:
                self.init(
                    .database,
                    "the PostgreSQL server at \(location.server) does not offer TLS, and the URL asks for it "
                        + "(sslmode=require); use sslmode=prefer or disable in the URL, or turn on ssl in the server",
                    hint: .checkDatabaseLocation)
            case .serverClosedConnection:
                let cause = error.underlying.map(Self.connectionCause) ?? "the server closed it"
                self.init(.database, prefix + Self.lostConnection(at: location, cause: cause))
            case .connectionError where error.underlying.map(Self.wasDropped) == true:
                // The server was reached and the connection reset while it started (the server
                // ending sessions, a restart): lost, not unreachable, so a caller tries again.
                let cause = error.underlying.map(Self.closingCause) ?? "\(error.code)"
                self.init(.database, prefix + Self.lostConnection(at: location, cause: cause))
            case .connectionError, .failedToAddSSLHandler:
                let cause = error.underlying.map(Self.connectionCause) ?? "\(error.code)"
                self.init(
                    .database,
                    "cannot reach the PostgreSQL server at \(location.server) (\(cause)); check that it runs and "
                        + "the URL", hint: .checkDatabaseLocation)
            case .authMechanismRequiresPassword:
                self.init(
                    .database,
                    "authentication failed for user \(location.user) on the PostgreSQL server at \(location.server) "
                        + "(it asks for a password and the URL has none); put the password in the URL",
                    hint: .checkDatabaseLocation)
            case .poolClosed:
                self.init(.database, "\(prefix)the store on \(location.server) is closed; open it again")
            case .clientClosedConnection:
                // A query sent to a connection that is closing or closed. The pool's own close is
                // told apart by `PostgresPool` (it fails every call as closed first); here the
                // connection was ending because the server ended it (a restart,
                // pg_terminate_backend) or the network failed, its cause in `underlying`, and
                // postgres-nio only saw it first: a lost connection, not a closed store.
                let cause = error.underlying.map(Self.closingCause) ?? "the connection was closing"
                self.init(.database, prefix + Self.lostConnection(at: location, cause: cause))
            case .queryCancelled:
                self.init(.database, "\(prefix)the query on \(location.server) was cancelled")
            default:
                let cause = error.underlying.map { " (\($0))" } ?? ""
                self.init(.database, "\(prefix)PostgreSQL at \(location.server) failed: \(error.code)\(cause)")
            }
        }

        /// The primary keys whose values come from a sequence: what a value is, and its sequence.
        static let sequencedTables: [String: (what: String, sequence: String)] = [
            "users_pkey": ("user ID", "the sequence of user IDs"),
            "items_pkey": ("item ID", "the sequence of item IDs"),
            "saved_views_pkey": ("saved view ID", "the sequence of saved view IDs"),
            "shelf_change_log_pkey": ("change log's seq", "the change log's sequence"),
        ]

        /// The shelf table (`shelf_…`, the schema left out) a "relation … does not exist"
        /// message names, or nil when it names another (a table of the caller's own SQL).
        static func missingShelfTable(_ message: String) -> String? {
            let parts = message.split(separator: "\"", omittingEmptySubsequences: false)
            guard parts.count >= 3, message.hasPrefix("relation ") else { return nil }
            let name = parts[1].split(separator: ".").last.map(String.init) ?? ""
            return name.hasPrefix("shelf_") ? name : nil
        }

        /// The shelf function (`shelf_…`, schema and arguments left out) a "function … does
        /// not exist" message names, or nil when it names another.
        static func missingShelfFunction(_ message: String) -> String? {
            guard message.hasPrefix("function "), message.hasSuffix(" does not exist") else { return nil }
            let signature = message.dropFirst("function ".count).prefix { $0 != "(" && $0 != " " }
            let name = signature.split(separator: ".").last.map(String.init) ?? ""
            return name.hasPrefix("shelf_") ? name : nil
        }

        /// The words of a connection lost in the middle of work; `isLostConnection` knows them.
        static func lostConnection(at location: PostgresLocation, cause: String) -> String {
            "the connection to the PostgreSQL server at \(location.server) was lost (\(cause))"
        }

        /// True when this error says the connection to the server was lost in the middle of
        /// work, so the caller can say what that left undone.
        package var isLostConnection: Bool {
            message.contains("the connection to the PostgreSQL server at ") && message.contains(" was lost (")
        }

        /// True when this error says the connection was lost to a network that fell silent or
        /// timed out (not to a server that ended it): trying again would wait as long again.
        package var isSilentNetwork: Bool {
            message.contains("did not answer") || message.contains("could not reach the server")
                || message.contains("timed out")
        }

        /// True when this error says the server could not be reached (no connection, or no
        /// answer to the connection's start).
        package var isUnreachable: Bool {
            message.hasPrefix("cannot reach the PostgreSQL server at ")
        }

        /// True when this error says the server refused a connection for want of free ones
        /// (`53300`, "too many clients"): it runs, but is full.
        package var isServerFull: Bool {
            message.contains(" has no connection left (")
        }

        /// Why a connection was closing when a query came: the server's message when it ended
        /// the connection (57P01 "terminating connection due to administrator command"),
        /// else the network error.
        private static func closingCause(_ error: any Error) -> String {
            if let error = error as? PSQLError {
                if let message = error.serverInfo?[.message] { return message }
                if let underlying = error.underlying { return connectionCause(underlying) }
                return error.code == .serverClosedConnection ? "the server closed it" : "\(error.code)"
            }
            return connectionCause(error)
        }

        /// True when `error` says a connection was made and then dropped (reset, broken, closed
        /// by the server, or ended by it with 57P01-57P03), not that none could be made.
        private static func wasDropped(_ error: any Error) -> Bool {
            switch error {
            case let error as IOError:
                return [ECONNRESET, EPIPE, ECONNABORTED].contains(error.errnoCode)
            case let error as NIOConnectionError:
                return error.connectionErrors.contains { wasDropped($0.error) }
            case let error as PSQLError:
                if let state = error.serverInfo?[.sqlState] { return state.hasPrefix("57P0") }
                if error.code == .serverClosedConnection { return true }
                return error.underlying.map(wasDropped) ?? false
            case ChannelError.eof, ChannelError.ioOnClosedChannel:
                return true
            default:
                return false
            }
        }

        /// Why a connection could not be made, in a few words: "connection refused", "the
        /// host name does not resolve (…)", "timed out after 10 s".
        private static func connectionCause(_ error: any Error) -> String {
            switch error {
            case let error as NIOConnectionError:
                if let failure = error.connectionErrors.first { return connectionCause(failure.error) }
                if let dns = error.dnsAError ?? error.dnsAAAAError {
                    return "the host name \(error.host) does not resolve: \(dns)"
                }
                return String(describing: error)
            case let error as IOError:
                return String(cString: strerror(error.errnoCode)).lowercased()
            case ChannelError.connectTimeout(let limit):
                return "no answer within \(limit.nanoseconds / 1_000_000_000) s"
            default:
                return String(describing: error)
            }
        }

        /// The SQLSTATE of a server error, or nil.
        package static func sqlState(of error: any Error) -> String? {
            switch error {
            case let error as PSQLError: error.serverInfo?[.sqlState]
            case let error as PostgresTransactionError:
                (error.closureError ?? error.commitError ?? error.beginError).flatMap { sqlState(of: $0) }
            default: nil
            }
        }

        /// The constraint a server error names, or nil.
        package static func constraintName(of error: any Error) -> String? {
            (error as? PSQLError)?.serverInfo?[.constraintName]
        }
    }
#endif
