"""A generated handbook page for the conversation tests: sibling headings with prefixes, a
table of levels, a bulleted list of mailboxes."""

CHAT_PAGE = """# Chat

## Channels

### Channel Categories

Channels are grouped by their purpose; each category has its own prefix.

#### Feature Channels (f_)

Feature channels are used to discuss one product feature. Their names start with f_ and they are archived when the feature ships.

#### Group Channels (g_)

Group channels are prefixed with g_ and hold the discussions of one product group and its stable counterparts.

#### Location Channels (loc_)

Location channels are prefixed with loc_ and help team members who live in the same region meet for get-togethers.

#### Project Channels (proj_)

Project channels are prefixed with proj_ and exist while a cross-functional project is running.

## Levels

| Level | Scope of impact | Expected behaviour |
|-------|-----------------|--------------------|
| Executive | Division | Champions the strategy |
| Director | Department | Drives change across teams |
| Manager | Team | Implements the plans |
| Associate | Own work | Learns and develops |

## Correspondence

- **Accounts Payable** - vendor invoices go to the mailbox ap@example.com.
- **Billing Operations** - customer billing questions go to billing@example.com.
- **Payroll** - contractor invoices go to payroll@example.com.
"""
