package bridge

// Discovery (topics_list, services_list, params_get by prefix) shows the
// planner only the names its allowlists let it use: a name it cannot use
// costs tokens and invites an attempt. The operator sees every name, each
// marked with planner_allowed, to see what the config hides.

// reachField marks, in an operator's listing, whether the planner may reach
// the name.
const reachField = "planner_allowed"

// listed reports whether a discovery tool lists a name for role, given
// whether the allowlists let the planner reach it.
func listed(role Role, allowed bool) bool { return allowed || role == RoleOperator }

// markReach adds planner_allowed to an operator's item; the planner's items
// carry no mark (everything it sees it may reach).
func markReach(item map[string]any, role Role, allowed bool) map[string]any {
	if role == RoleOperator {
		item[reachField] = allowed
	}
	return item
}
