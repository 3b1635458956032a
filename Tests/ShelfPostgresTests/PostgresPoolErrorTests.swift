#if PostgreSQL
    import ShelfPostgres
    import ShelfStore
    import Testing
    import _ConnectionPoolModule

    /// What the store makes of the errors PostgresClient's pool throws as they are.
    struct PostgresPoolErrorTests {
        /// Once no connection could be made for a while (its circuit breaker, 60 s), the pool
        /// fails every call at once with `connectionCreationCircuitBreakerTripped` until one can.
        /// The server cannot be reached: the error says so, as a refused connection does, and is
        /// "unavailable" (a service answers 503 with `Retry-After`). It was a 500 "PostgreSQL at
        /// …: ConnectionPoolError(…)" to a write while the server was down, in CI under load
        /// (`PostgresDownTests`), which cannot wait a minute for the breaker itself.
        @Test func aTrippedCircuitBreakerIsAnUnreachableServer() throws {
            let place = try PostgresLocation(url: "postgres://shelf@127.0.0.1:5999/shelf")
            let error = StoreError(postgres: ConnectionPoolError.connectionCreationCircuitBreakerTripped, at: place)
            #expect(error.isUnreachable, "\(error.message)")
            #expect(error.isServerUnavailable)
            #expect(!error.isLostConnection)
            #expect(error.hint == .checkDatabaseLocation)
            #expect(
                error.message
                    == "cannot reach the PostgreSQL server at 127.0.0.1:5999 (no connection to it could be made for a "
                    + "while); check that it runs and the URL")
        }
    }
#endif
