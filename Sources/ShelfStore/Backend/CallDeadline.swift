/// A bound on the database calls of one piece of work taken as a whole: an HTTP request makes
/// several calls in a row (`GET /api/items`: the token check, the page, its count, the owners'
/// emails), each bounded on its own; over a network that fell silent their bounds added up
/// past a minute (hostile round 10). Set around the work (`CallDeadline.$current`), every
/// call of a server backend (PostgreSQL's pool) that is still waiting at the deadline fails
/// then, as `StoreError.isServerUnavailable` saying the database did not answer in time, and
/// every call that starts after it fails at once. The SQLite backend, whose calls do not
/// wait on a network, does not read it.
package struct CallDeadline: Sendable {
    /// When the calls must have answered.
    package let instant: ContinuousClock.Instant
    /// How long the work was given in all, for the message ("within 30 s").
    package let limit: Duration

    /// A deadline `limit` from now.
    package init(in limit: Duration) {
        self.init(at: ContinuousClock.now + limit, limit: limit)
    }

    /// A deadline at `instant`, of work given `limit` in all (which began `limit` before it).
    package init(at instant: ContinuousClock.Instant, limit: Duration) {
        self.instant = instant
        self.limit = limit
    }

    /// The deadline of the work under way, if it has one.
    @TaskLocal package static var current: CallDeadline?
}
