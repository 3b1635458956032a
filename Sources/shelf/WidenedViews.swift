import ShelfStore

/// Saved views of one user's items whose owner was removed: the store clears their owner, so
/// they show everyone's items. Commands that remove users (`users remove`, a users import with
/// `--mode replace`) name them rather than let them widen unseen.
enum WidenedViews {
    /// The saved views that show one user's items now: each view's name and its owner's email.
    static func owned(in store: Store) async throws -> [(view: String, owner: String)] {
        var owned: [(view: String, owner: String)] = []
        for view in try await store.views.views() {
            guard let owner = view.owner, let user = try await store.users.user(id: owner) else { continue }
            owned.append((view.name, user.email))
        }
        return owned
    }

    /// The note naming the views of `before` (from `owned(in:)`) whose owner is gone now; nil
    /// when there are none.
    static func note(before: [(view: String, owner: String)], store: Store) async throws -> String? {
        guard !before.isEmpty else { return nil }
        let stillOwned = Set(try await store.views.views().filter { $0.owner != nil }.map(\.name))
        return describe(before.filter { !stillOwned.contains($0.view) }, removed: true)
    }

    /// The note naming `widened` (views and their owners' emails); `removed` false when their
    /// owners would be removed (a dry run). Nil when there are none.
    static func describe(_ widened: [(view: String, owner: String)], removed: Bool) -> String? {
        guard !widened.isEmpty else { return nil }
        let one = widened.count == 1
        let owners = Set(widened.map(\.owner))
        let showed = removed ? "showed" : one ? "shows" : "show"
        let shown: String
        if owners.count == 1, let owner = owners.first {
            shown =
                "\(StoreCopier.listed(widened.map { "“\(Sanitized($0.view))”" })) \(showed) only \(Sanitized(owner))'s items"
        } else {
            let each = widened.map { "“\(Sanitized($0.view))” (\(Sanitized($0.owner))'s items)" }
            shown = "\(StoreCopier.listed(each)) \(showed) only one user's items"
        }
        let now =
            removed
            ? "and now \(one ? "shows" : "show") everyone's (\(one ? "its owner was" : "their owners were") removed)"
            : "and would show everyone's (\(one ? "its owner" : "their owners") would be removed)"
        return "Note: the saved \(one ? "view" : "views") \(shown) \(now); give \(one ? "it" : "them") another owner "
            + "(`shelf views save NAME --query TEXT --user EMAIL`) or delete \(one ? "it" : "them") "
            + "(`shelf views delete NAME`)"
    }
}
