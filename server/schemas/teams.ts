/**
 * JSON schemas of the cloud's account and teamspace API (server/routes/accounts.ts, teams.ts,
 * team-keys.ts): what each route takes and answers, so no token or hash ever leaves.
 */
import { KeySchema } from './dashboard.js'

const email = { type: 'string', minLength: 3, maxLength: 320 } as const
const password = { type: 'string', minLength: 1, maxLength: 1024 } as const
const token = { type: 'string', minLength: 1, maxLength: 200 } as const
const invitedRole = { type: 'string', enum: ['admin', 'developer'] } as const

const object = <P extends Record<string, object>, R extends readonly (keyof P & string)[]>(properties: P, required: R) =>
  ({ type: 'object', additionalProperties: false, required, properties }) as const

export const SignupBody = object({ email, password }, ['email', 'password'])
export const TokenBody = object({ token }, ['token'])
export const EmailBody = object({ email }, ['email'])
export const ResetBody = object({ token, password }, ['token', 'password'])
export const TeamNameBody = object({ name: { type: 'string', minLength: 1, maxLength: 200 } }, ['name'])
export const InviteBody = object({ email, role: invitedRole }, ['email', 'role'])
export const RoleBody = object({ role: invitedRole }, ['role'])

export const TeamParams = object({ team: { type: 'integer', minimum: 1 } }, ['team'])
export const MemberParams = object({ team: { type: 'integer', minimum: 1 }, userId: { type: 'integer', minimum: 1 } }, ['team', 'userId'])
export const TeamItemParams = object({ team: { type: 'integer', minimum: 1 }, id: { type: 'integer', minimum: 1 } }, ['team', 'id'])

export const TeamSchema = {
  type: 'object',
  required: ['id', 'name', 'plan', 'personal', 'role', 'limits', 'createdAt'],
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    plan: { type: 'string' },
    personal: { type: 'boolean' },
    role: { type: 'string' },
    limits: {
      type: 'object',
      required: ['members', 'privateSources', 'createsTeams', 'rateMultiplier'],
      // members: null for no limit (JSON has no Infinity).
      properties: { members: { type: ['integer', 'null'] }, privateSources: { type: 'boolean' }, createsTeams: { type: 'boolean' }, rateMultiplier: { type: 'number' } },
    },
    createdAt: { type: 'string' },
  },
} as const

/** The teams, and the install's keyed rate limit that each plan's `rateMultiplier` multiplies (0: none). */
export const TeamListSchema = {
  type: 'object',
  required: ['teams', 'rateLimit'],
  properties: {
    teams: { type: 'array', items: TeamSchema },
    rateLimit: { type: 'object', required: ['keyed', 'windowSeconds'], properties: { keyed: { type: 'integer' }, windowSeconds: { type: 'integer' } } },
  },
} as const

export const MemberSchema = {
  type: 'object',
  required: ['userId', 'email', 'role', 'joinedAt'],
  properties: { userId: { type: 'integer' }, email: { type: 'string' }, role: { type: 'string' }, joinedAt: { type: 'string' } },
} as const

export const MemberListSchema = { type: 'object', required: ['members'], properties: { members: { type: 'array', items: MemberSchema } } } as const

export const InvitationSchema = {
  type: 'object',
  required: ['id', 'teamId', 'email', 'role', 'invitedBy', 'createdAt', 'expiresAt'],
  properties: {
    id: { type: 'integer' },
    teamId: { type: 'integer' },
    email: { type: 'string' },
    role: { type: 'string' },
    invitedBy: { type: ['integer', 'null'] },
    createdAt: { type: 'string' },
    expiresAt: { type: 'string' },
  },
} as const

/** What an invitation's token is to, for the signed-out invitation page: no IDs of the team or inviter. */
export const InvitationPreviewSchema = {
  type: 'object',
  required: ['teamName', 'email', 'role', 'expiresAt'],
  properties: { teamName: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' }, expiresAt: { type: 'string' } },
} as const

export const InvitationListSchema = { type: 'object', required: ['invitations'], properties: { invitations: { type: 'array', items: InvitationSchema } } } as const

/** A team's key as its members see it: the dashboard's key, and whose it is. */
export const TeamKeySchema = {
  type: 'object',
  required: [...KeySchema.required, 'userId'],
  properties: { ...KeySchema.properties, userId: { type: ['integer', 'null'] } },
} as const

export const TeamKeyListSchema = { type: 'object', required: ['keys'], properties: { keys: { type: 'array', items: TeamKeySchema } } } as const

export const CreatedTeamKeySchema = {
  type: 'object',
  required: [...TeamKeySchema.required, 'key'],
  properties: { ...TeamKeySchema.properties, key: { type: 'string' } },
} as const
