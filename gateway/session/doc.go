// Package session keeps what the server holds for one MCP session and
// drops it when the session ends: the LPN IDs the session has met, offered
// back to it as completions ([LPNs]), and the calls running in it, which
// end with it ([Calls]).
//
// The server adds both to its hooks when it builds its MCP server:
//
//	var lpns session.LPNs
//	var calls session.Calls
//	hooks := &server.Hooks{}
//	lpns.Hooks(hooks)
//	opts := calls.Options(hooks, logger)
//
// and a completion reads lpns.List(session.ID(ctx)).
package session
