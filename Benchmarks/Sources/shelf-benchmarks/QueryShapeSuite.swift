import Foundation
import ShelfStore

/// `search.shape.*` (part of `search`): every filter shape of the query language without words
/// — an owner, owner prefixes, status, priority, ages and dates, and their combinations — read
/// as a first page (50 items) in every sort order, and counted, through Shelf's store at
/// 1,000,000 items (issue 23: a first page in ≤ 2 ms, a count in ≤ 5 ms). The same cases on
/// SQLite (the `search` database) and on PostgreSQL (`--backend postgres`: the same rows,
/// filled by `fillShapes`).
///
/// The data: 1,000 owners; status `done` for every fourth item and priority `n % 4` (so
/// `status:done` is `prio:0`, and `status:done prio:3` matches nothing: the case a filter
/// tested row by row along a sort index reads the whole table for); one item every 30 s from
/// 2020-09-13 over 347 days, so a date span selects a slice and an age in days selects all.
struct QueryShapeSuite {
    let store: Store
    let runs: Int
    let report: Report
    let only: String?
    /// A label for the figures: "" on SQLite, "postgres." on PostgreSQL.
    let prefix: String

    static let pageSize = 50

    /// name, the query's text, and whether it also sets `ItemQuery.owner` (to user 17).
    static let filters: [(name: String, text: String, owner: Bool)] = [
        ("all", "", false),
        ("owner", "", true),
        ("owner_prefix", "@user1", false),
        ("status_open", "status:open", false),
        ("status_done", "status:done", false),
        ("prio_3", "prio:3", false),
        ("prio_ge_2", "prio:>=2", false),
        ("created_age", "created:>30d", false),
        ("created_before", "created:<2021-01-01", false),
        ("created_day", "created:2021-03-01", false),
        ("updated_after", "updated:>2021-08-01", false),
        ("status_prio", "status:open prio:3", false),
        ("status_prio_empty", "status:done prio:3", false),
        ("owner_status", "status:done", true),
        ("owner_prio", "prio:>=2", true),
        ("owner_prefix_status", "@user1 status:done", false),
        ("status_created", "status:open created:>2021-03-01", false),
        ("prio_updated", "prio:>=2 updated:<2021-01-01", false),
        ("status_prio_day", "status:open prio:1 created:2021-03-01", false),
    ]

    static let sorts: [(name: String, field: ItemQuery.SortField, direction: ItemQuery.SortDirection)] =
        ItemQuery.SortField.allCases.flatMap { field in
            [("\(field.rawValue)_desc", field, .descending), ("\(field.rawValue)_asc", field, .ascending)]
        }

    func run() async throws {
        var slowest = (page: 0.0, pageName: "", count: 0.0, countName: "")
        for filter in Self.filters {
            let base = ItemQuery(owner: filter.owner ? User.ID(17) : nil, text: filter.text)
            let countName = "search.shape.\(prefix)\(filter.name).count"
            if only == nil || only == countName || only == "search.shape" || only == "search.shape.counts" {
                let counted = try await store.items.count(matching: base)
                report.note("\(countName): '\(filter.text)'\(filter.owner ? " of user 17" : "") matches \(counted)")
                let times = try await measure { _ = try await store.items.count(matching: base) }
                report.print(Figure(name: countName, unit: "ms", value: median(times), target: "<= 5"))
                if median(times) > slowest.count {
                    slowest = (slowest.page, slowest.pageName, median(times), countName)
                }
            }
            for sort in Self.sorts {
                let name = "search.shape.\(prefix)\(filter.name).\(sort.name)"
                guard only == nil || only == name || only == "search.shape" else { continue }
                var query = base
                query.sortField = sort.field
                query.sortDirection = sort.direction
                let times = try await measure { _ = try await store.items.items(matching: query, limit: Self.pageSize) }
                report.print(Figure(name: name, unit: "ms", value: median(times), target: "<= 2"))
                if median(times) > slowest.page { slowest = (median(times), name, slowest.count, slowest.countName) }
            }
        }
        report.note(
            "slowest first page: \(slowest.pageName) \(String(format: "%.2f", slowest.page)) ms; "
                + "slowest count: \(slowest.countName) \(String(format: "%.2f", slowest.count)) ms; "
                + PostgresBaseline.machineLoad())
    }

    /// `runs` timings of `body` in milliseconds, after one run that warms the caches.
    private func measure(_ body: () async throws -> Void) async throws -> [Double] {
        var times: [Double] = []
        for run in 0...runs {
            let elapsed = try await time(body)
            if run > 0 { times.append(elapsed * 1000) }
        }
        return times
    }
}
