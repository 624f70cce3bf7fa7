/** JSON schemas of single sign-on's configuration from the dashboard (on-premise, admin session). */

const names = { type: 'array', maxItems: 500, items: { type: 'string', maxLength: 320 } } as const

const SsoSettingsSchema = {
  type: 'object',
  required: ['issuer', 'clientId', 'scopes', 'groupsClaim', 'adminGroups', 'passwordSignIn', 'breakGlassAdmins', 'clockToleranceSeconds', 'label'],
  properties: {
    issuer: { type: 'string' },
    clientId: { type: 'string' },
    scopes: { type: 'array', items: { type: 'string' } },
    groupsClaim: { type: 'string' },
    adminGroups: { type: 'array', items: { type: 'string' } },
    passwordSignIn: { type: 'boolean' },
    breakGlassAdmins: { type: 'array', items: { type: 'string' } },
    clockToleranceSeconds: { type: 'integer' },
    label: { type: 'string' },
  },
} as const

export const SsoConfigurationViewSchema = {
  type: 'object',
  required: ['source', 'settings', 'publicUrl', 'redirectUri', 'clientSecretSet', 'publicUrlFixed'],
  properties: {
    source: { type: 'string', enum: ['startup', 'dashboard', 'off'] },
    settings: { anyOf: [SsoSettingsSchema, { type: 'null' }] },
    publicUrl: { type: 'string' },
    redirectUri: { type: ['string', 'null'] },
    clientSecretSet: { type: 'boolean' },
    publicUrlFixed: { type: 'boolean' },
  },
} as const

/** What an admin saves; the values are checked as the sso.* start-up settings are (src/config.ts). */
export const SsoConfigurationBody = {
  type: 'object',
  required: ['issuer', 'clientId'],
  additionalProperties: false,
  properties: {
    issuer: { type: 'string', minLength: 1, maxLength: 500 },
    clientId: { type: 'string', minLength: 1, maxLength: 500 },
    clientSecret: { type: ['string', 'null'], maxLength: 1000 },
    publicUrl: { type: 'string', maxLength: 500 },
    scopes: names,
    groupsClaim: { type: 'string', minLength: 1, maxLength: 200 },
    adminGroups: names,
    passwordSignIn: { type: 'boolean' },
    breakGlassAdmins: names,
    clockToleranceSeconds: { type: 'integer', minimum: 0, maximum: 600 },
    label: { type: 'string', minLength: 1, maxLength: 60 },
  },
} as const
