#if PostgreSQL
    package import Logging
    package import PostgresNIO
    package import ShelfReactive
    package import ShelfStore

    /// Live values over PostgreSQL: re-reads a value when a commit, from any connection or
    /// machine, changed a table it reads, and publishes it when it differs from the last.
    ///
    /// **How it knows.** The schema's triggers (migration 0008) log every changed row in
    /// `shelf_change_log` inside the writing transaction; nothing there notifies. The feed holds
    /// ONE connection of its own (`application_name` `shelf-change-feed` unless the configuration
    /// sets one), not one from a pool, since a pool recycles connections and their `LISTEN`s with
    /// them. On it, it `LISTEN`s to `shelf_changes` (shelf's wake-up after its commits,
    /// `CommitWake`) and reads the log when woken, when `wake()` is called, and once a second
    /// while live values exist (for programs that send no wake-up). A live value runs again when
    /// a change touched a table it reads; a rolled-back transaction logs nothing. The fetches are
    /// the caller's (typically on a `PostgresClient` pool).
    ///
    /// **Connecting.** `init` does not connect; the first `live` call does, and waits for
    /// `LISTEN` to be acknowledged and the log's head to be read before it reads the first value,
    /// so no commit can fall between the read and the subscription.
    ///
    /// **Lost connection.** When the listening connection fails (server restart,
    /// `pg_terminate_backend`, network), the feed reconnects after 50 ms, doubling the delay up
    /// to 5 s (back to 50 ms once listening again), and reads the log from where it stood: the
    /// live values the changes made meanwhile touch run again, the others stay. Only when the
    /// connection stays away for the loss grace (1 s) does every live value become
    /// `.failure`, saying that the connection to the server was lost and is being
    /// re-established; the value replaces the failure when it is back.
    ///
    /// **Cost when idle.** With no live value, nothing runs. With live values and no commits,
    /// one read of the log's tail a second, on the listening connection.
    ///
    /// **Logging.** Lost connections, reconnects, failed attempts, state and a log pruned past
    /// the feed at `.debug`, changes read at `.trace`; nothing at `.notice` or above.
    ///
    /// Call `close()` when done; releasing the feed stops it too, without waiting.
    package final class PostgresChangeFeed: Sendable {
        let listener: ChangeListener

        /// A feed that will listen on a connection made with `configuration`; connects on the
        /// first `live` call, not now. `lossGrace`: how long the listening connection may be away
        /// before live values show the loss (1 s unless a test needs a reconnect under load to
        /// fit in it).
        package init(
            configuration: PostgresConnection.Configuration, logger: Logger,
            lossGrace: Duration = .seconds(1)
        ) {
            listener = ChangeListener(configuration: configuration, logger: logger, lossGrace: lossGrace)
        }

        deinit {
            listener.stop()
        }

        /// A live value: `fetch` now, then again whenever a commit changes one of `tables`.
        ///
        /// The first value is read before this returns, after the listening connection has
        /// acknowledged `LISTEN` (connecting first if needed). Later, a change of the log in a
        /// table in `tables` runs `fetch` again (never two runs at once; changes during a run
        /// cause one more run after it), and the result is published when it differs from the
        /// current value. A failed run publishes `.failure(translate(error))` once and
        /// retries after 100 ms, 300 ms, 1 s, then every 3 s, and on every notification, until a
        /// run succeeds. Values are published on the task that ran `fetch`; use
        /// `observeOnMainActor` for UI code.
        ///
        /// The query lives as long as the returned property or an observation of it; then it is
        /// removed from the feed and `fetch` is not called again.
        /// - Parameters:
        ///   - tables: the tables `fetch` reads, as the triggers name them (`users`, `items`).
        ///   - translate: turns what `fetch` throws into a `StoreError` (by default, `describe`).
        ///   - fetch: reads the value; runs on a task, concurrently with nothing else of this query.
        /// - Throws: `StoreError` when the feed cannot listen (server unreachable, after one
        ///   connection attempt; or closed), or `translate(error)` when the first `fetch` fails;
        ///   `CancellationError` when the calling task is cancelled while it waits for the
        ///   listening connection (at once), or when `fetch` throws it.
        package func live<Value: Equatable & Sendable>(
            reading tables: Set<String>,
            translate: @escaping @Sendable (any Error) -> StoreError = PostgresChangeFeed.translate,
            _ fetch: @escaping @Sendable () async throws -> Value
        ) async throws -> Property<LiveResult<Value>> {
            // Registered first: a notification arriving before the first read ends marks the
            // query for one more run, so nothing between subscription and read is missed.
            let query = PostgresLiveQuery(tables: tables, listener: listener, translate: translate, fetch: fetch)
            _ = try await listener.waitUntilListening()
            let initial: Value
            do {
                initial = try await fetch()
            } catch let error as CancellationError {
                throw error
            } catch {
                throw translate(error)
            }
            return Property(query.start(initial: initial), retaining: query)
        }

        /// Calls `onChange` after every read of the change log that brought changes of `tables`
        /// (or may have missed some), when the listening connection comes back or is lost, and
        /// when the feed closes; until the returned value is released. Calls come on the
        /// feed's tasks: keep `onChange` short. Returns once `LISTEN` is acknowledged (connecting
        /// first if needed), so a commit after this returns is seen.
        /// - Throws: `StoreError` when the feed cannot listen; `CancellationError`.
        package func watch(tables: Set<String>, _ onChange: @escaping @Sendable () -> Void) async throws
            -> any Sendable
        {
            let watch = ChangeWatch(tables: tables, listener: listener, onChange)
            _ = try await listener.waitUntilListening()
            return watch
        }

        /// Ends listening, the listening connection, and every live query's runs and retries;
        /// live properties keep their last value. Returns once the connection is closed.
        /// Idempotent; `live` throws afterwards.
        package func close() async {
            await listener.stop()?.value
        }

        /// Wakes the feed's reader of the change log: this process committed a change. Returns
        /// at once; does nothing while the feed is not listening.
        package func wake() {
            listener.wake()
        }

        /// How many times the feed has read the change log (for tests).
        package var logReads: Int { listener.logReads }

        /// While the listening connection is lost, when it last heard from the server; nil while
        /// it listens (`ChangeListener.silentSince`).
        package var silentSince: ContinuousClock.Instant? { listener.silentSince }

        /// How many live queries the feed knows (released ones are removed at once): for tests.
        package var liveQueryCount: Int { listener.registrationCount }

        /// `error` as a `StoreError`: unchanged when it is one; a PostgreSQL server error with its
        /// message and SQLSTATE; anything else with its description. The backend's fuller
        /// translation can be passed to `live` instead.
        @Sendable
        package static func translate(_ error: any Error) -> StoreError {
            if let error = error as? StoreError { return error }
            return StoreError(.database, "reading a live value from PostgreSQL failed: \(describe(error))")
        }

        /// A short account of `error` for messages. `PSQLError`'s own description hides
        /// everything; this keeps the server's message and SQLSTATE, or the client-side code and
        /// its cause.
        static func describe(_ error: any Error) -> String {
            guard let error = error as? PSQLError else { return String(describing: error) }
            if let info = error.serverInfo, let message = info[.message] {
                return info[.sqlState].map { "\(message) (SQLSTATE \($0))" } ?? message
            }
            let code = String(describing: error.code)
            guard let underlying = error.underlying else { return code }
            return "\(code): \(describe(underlying))"
        }
    }
#endif
