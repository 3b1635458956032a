#if PostgreSQL
    import Foundation
    import ShelfPostgres
    import ShelfStore
    import Testing

    /// What opening says when the server, the password or the database is wrong.
    @Suite(.enabled(if: PostgresServer.url != nil)) struct PostgresOpenErrorTests {
        private var server: PostgresLocation {
            get throws { try PostgresLocation(url: PostgresServer.url ?? "") }
        }

        @Test func wrongPasswordSaysAuthenticationFailed() async throws {
            var place = try server
            place.password = "definitely-not-the-password"
            await #expect {
                _ = try await PostgresBackend.open(url: Self.url(place))
            } throws: { error in
                let message = "\(error)"
                return StoreError.code(of: error) == .database
                    && message.contains("authentication failed for user \(place.user)")
                    && message.contains("check the user and password")
                    && !message.contains("definitely-not-the-password")
            }
        }

        @Test func missingDatabaseSaysHowToCreateIt() async throws {
            let place = try server.with(database: "shelf_missing_\(UInt32.random(in: 0...UInt32.max))")
            await #expect {
                _ = try await PostgresBackend.open(url: Self.url(place))
            } throws: { error in
                "\(error)".contains("database \(place.database) does not exist on \(place.server)")
                    && "\(error)".contains("createdb \(place.database)")
            }
        }

        @Test func closedPortSaysTheServerCannotBeReached() async throws {
            var place = try server
            place.host = "127.0.0.1"
            place.port = 1
            await #expect {
                _ = try await PostgresBackend.open(url: Self.url(place))
            } throws: { error in
                StoreError.code(of: error) == .database
                    && "\(error)".contains("cannot reach the PostgreSQL server at 127.0.0.1:1 (connection refused)")
                    && "\(error)".contains("--db/SHELF_DB")
            }
        }

        @Test func requiredTLSOnAServerWithoutItSaysSo() async throws {
            let place = try server
            let url = Self.url(place) + "?sslmode=require"
            await #expect {
                _ = try await PostgresBackend.open(url: url)
            } throws: { error in
                StoreError.code(of: error) == .database && "\(error)".contains("TLS")
                    && "\(error)".contains(place.server)
            }
        }

        /// The pool would wait for a connection without end; the call ends with the reason.
        @Test func aDatabaseDroppedWhileOpenEndsCallsWithTheReason() async throws {
            guard let server = PostgresServer.url else { return }
            let url = try await PostgresScratch.create(serverURL: server)
            let store = try await PostgresBackend.open(url: url)
            store.pool.leasePatience = .milliseconds(300)
            _ = try await store.users.users()
            try await PostgresScratch.drop(url: url)
            await #expect {
                _ = try await store.users.users()
            } throws: { error in
                "\(error)".contains("does not exist") && "\(error)".contains("createdb")
            }
            await store.close()
        }

        private static func url(_ place: PostgresLocation) -> String {
            var components = URLComponents()
            components.scheme = "postgres"
            components.user = place.user
            components.password = place.password
            components.host = place.host
            components.port = place.port
            components.path = "/" + place.database
            return components.string ?? ""
        }
    }
#endif
