/**
 * Word lists for realistic demo data: regions and their zones, data products, suppliers, CDUs,
 * destinations and pipeline task names. Supplier and subscriber names are fictional; hosts use the
 * reserved `.example` domain.
 */

export type ScheduleKind = 'hourly' | 'daily' | 'weekly' | 'monthly';

export interface Region {
  name: string;
  /** IANA zone the region's schedules run in; "" is UTC. */
  timezone: string;
}

export const REGIONS: readonly Region[] = [
  { name: 'EMEA', timezone: 'Europe/London' },
  { name: 'UK', timezone: 'Europe/London' },
  { name: 'Eurozone', timezone: 'Europe/Berlin' },
  { name: 'Nordics', timezone: 'Europe/Stockholm' },
  { name: 'US', timezone: 'America/New_York' },
  { name: 'Americas', timezone: 'America/New_York' },
  { name: 'LatAm', timezone: 'America/Sao_Paulo' },
  { name: 'Japan', timezone: 'Asia/Tokyo' },
  { name: 'APAC', timezone: 'Asia/Singapore' },
  { name: 'Australia', timezone: 'Australia/Sydney' },
  { name: 'Global', timezone: '' },
];

export interface DataProduct {
  id: string;
  name: string;
  /** Index into CDUS of the unit that runs it. */
  cdu: number;
  /** Cadences the product comes in, with relative weights. */
  kinds: Partial<Record<ScheduleKind, number>>;
}

export const DATA_PRODUCTS: readonly DataProduct[] = [
  { id: 'dp-equity-prices', name: 'Equity Prices', cdu: 0, kinds: { daily: 4, hourly: 1 } },
  { id: 'dp-fx-rates', name: 'FX Rates', cdu: 1, kinds: { daily: 3, hourly: 2 } },
  { id: 'dp-credit-ratings', name: 'Credit Ratings', cdu: 2, kinds: { daily: 3, weekly: 1, monthly: 1 } },
  { id: 'dp-corporate-actions', name: 'Corporate Actions', cdu: 3, kinds: { daily: 1 } },
  { id: 'dp-index-constituents', name: 'Index Constituents', cdu: 0, kinds: { daily: 3, monthly: 1 } },
  { id: 'dp-bond-reference', name: 'Bond Reference Data', cdu: 3, kinds: { daily: 1 } },
  { id: 'dp-yield-curves', name: 'Yield Curves', cdu: 1, kinds: { daily: 3, hourly: 1 } },
  { id: 'dp-esg-scores', name: 'ESG Scores', cdu: 4, kinds: { weekly: 2, monthly: 1 } },
  { id: 'dp-fund-navs', name: 'Fund NAVs', cdu: 5, kinds: { daily: 1 } },
  { id: 'dp-commodity-futures', name: 'Commodity Futures', cdu: 6, kinds: { daily: 3, hourly: 1 } },
  { id: 'dp-vol-surfaces', name: 'Options Volatility Surfaces', cdu: 6, kinds: { daily: 1 } },
  { id: 'dp-fundamentals', name: 'Company Fundamentals', cdu: 4, kinds: { weekly: 1, monthly: 1 } },
  { id: 'dp-economic-indicators', name: 'Economic Indicators', cdu: 7, kinds: { monthly: 2, weekly: 1 } },
  { id: 'dp-short-interest', name: 'Short Interest', cdu: 0, kinds: { weekly: 2, daily: 1 } },
  { id: 'dp-securities-master', name: 'Securities Master', cdu: 3, kinds: { daily: 1 } },
  { id: 'dp-cds-spreads', name: 'CDS Spreads', cdu: 2, kinds: { daily: 3, hourly: 1 } },
  { id: 'dp-trade-reporting', name: 'Trade Reporting', cdu: 8, kinds: { hourly: 2, daily: 1 } },
  { id: 'dp-counterparty-exposure', name: 'Counterparty Exposures', cdu: 8, kinds: { daily: 1 } },
  { id: 'dp-issuer-hierarchy', name: 'Issuer Hierarchy', cdu: 3, kinds: { weekly: 1, daily: 1 } },
  { id: 'dp-mortgage-pools', name: 'Mortgage Pool Factors', cdu: 5, kinds: { monthly: 2, daily: 1 } },
];

/** Name suffixes per cadence, with the local deadline times ("HH:MM") that fit each. */
export const VARIANTS: Record<ScheduleKind, readonly { suffix: string; times: readonly string[] }[]> = {
  hourly: [
    { suffix: 'Intraday', times: [] },
    { suffix: 'Hourly Snapshot', times: [] },
    { suffix: 'Hourly Delta', times: [] },
  ],
  daily: [
    { suffix: 'EOD', times: ['18:00', '19:30', '21:00', '22:00'] },
    { suffix: 'Close', times: ['17:30', '18:00'] },
    { suffix: 'Morning Snapshot', times: ['06:30', '07:00'] },
    { suffix: 'Daily', times: ['06:30', '08:00', '20:00'] },
    { suffix: 'Overnight Batch', times: ['02:00', '04:30'] },
  ],
  weekly: [
    { suffix: 'Weekly', times: ['06:00', '18:00'] },
    { suffix: 'Weekly Snapshot', times: ['06:00'] },
  ],
  monthly: [
    { suffix: 'Monthly', times: ['06:00', '09:00'] },
    { suffix: 'Month-Start Rebalance', times: ['06:00'] },
  ],
};

/** Minutes past the hour for hourly schedules; weekdays (0 = Sunday) and month days for the others. */
export const HOURLY_MINUTES = [5, 15, 30, 45] as const;
export const WEEKLY_DAYS = [1, 5, 6] as const;
export const MONTHLY_DAYS = [1, 2, 15] as const;

export interface Supplier {
  id: string;
  name: string;
  host: string;
}

export const SUPPLIERS: readonly Supplier[] = [
  ['Northwind Market Data', 'northwind'],
  ['Meridian Analytics', 'meridian'],
  ['Castellan Ratings', 'castellan'],
  ['Harbor Point Pricing', 'harborpoint'],
  ['Quantis Reference Data', 'quantis'],
  ['Bluefin Exchange Feeds', 'bluefin'],
  ['Aldgate Index Services', 'aldgate'],
  ['Sakura Financial Information', 'sakura-fi'],
  ['Southern Cross Data', 'southerncross'],
  ['Kestrel ESG Research', 'kestrel'],
  ['Ironbridge Fund Services', 'ironbridge'],
  ['Polaris Macro', 'polaris'],
  ['Tidewater Commodities', 'tidewater'],
  ['Vantage Clearing', 'vantage'],
].map(([name, host], index) => ({ id: `SUP-${1001 + index * 7}`, name: name ?? '', host: host ?? '' }));

export const CDUS: readonly { id: string; name: string }[] = [
  { id: 'cdu-eq', name: 'Equities Data' },
  { id: 'cdu-rates-fx', name: 'Rates & FX Data' },
  { id: 'cdu-credit', name: 'Credit Data' },
  { id: 'cdu-refdata', name: 'Reference Data' },
  { id: 'cdu-esg', name: 'ESG & Fundamentals' },
  { id: 'cdu-funds', name: 'Funds & Structured Products' },
  { id: 'cdu-commodities', name: 'Commodities & Derivatives' },
  { id: 'cdu-macro', name: 'Macro & Economics' },
  { id: 'cdu-regulatory', name: 'Regulatory Reporting' },
];

export const DESTINATION_TYPES = ['S3', 'SFTP', 'SNOWFLAKE', 'KAFKA', 'GCS'] as const;
export type DestinationType = (typeof DESTINATION_TYPES)[number];

export const SUBSCRIBERS: readonly { orgId: string; label: string }[] = [
  { orgId: 'org-quant-research', label: 'Quant Research' },
  { orgId: 'org-risk', label: 'Market Risk' },
  { orgId: 'org-trading', label: 'Trading Desk' },
  { orgId: 'org-finance', label: 'Finance' },
  { orgId: 'org-compliance', label: 'Compliance' },
  { orgId: 'org-client-aurora', label: 'Aurora Capital' },
  { orgId: 'org-client-linden', label: 'Linden Asset Management' },
];

/** Destination name and dispatch task name per destination type. */
export const DESTINATION_STYLE: Record<DestinationType, { name: (label: string) => string; task: string }> = {
  S3: { name: (label) => `${label} S3 (eu-west-1)`, task: 'Dispatch to S3 bucket' },
  SFTP: { name: (label) => `${label} SFTP drop`, task: 'Upload to SFTP server' },
  SNOWFLAKE: { name: (label) => `${label} Snowflake warehouse`, task: 'Load into Snowflake table' },
  KAFKA: { name: (label) => `${label} Kafka topic`, task: 'Publish to Kafka topic' },
  GCS: { name: (label) => `${label} GCS bucket`, task: 'Dispatch to GCS bucket' },
};

/** Pipeline steps: name, relative weight of its running time, and the failures it can raise. */
export interface StepStyle {
  name: string;
  weight: number;
  failures: readonly string[];
}

const FETCH_FAILURES = ['E_SOURCE_TIMEOUT', 'E_FILE_NOT_FOUND', 'E_AUTH_FAILED'];
export const FETCH_STEPS: readonly StepStyle[] = [
  { name: 'Fetch vendor file', weight: 4, failures: FETCH_FAILURES },
  { name: 'Poll supplier SFTP', weight: 4, failures: FETCH_FAILURES },
  { name: 'Download from vendor API', weight: 4, failures: FETCH_FAILURES },
];
export const CHECKSUM_STEP: StepStyle = {
  name: 'Verify checksum',
  weight: 1,
  failures: ['E_CHECKSUM_MISMATCH'],
};
export const VALIDATE_STEP: StepStyle = {
  name: 'Validate schema',
  weight: 1,
  failures: ['E_SCHEMA_MISMATCH', 'E_EMPTY_FILE'],
};
export const NORMALIZE_STEPS: readonly StepStyle[] = [
  { name: 'Normalize identifiers', weight: 2, failures: ['E_UNMAPPED_IDENTIFIER'] },
  { name: 'Map to canonical schema', weight: 2, failures: ['E_SCHEMA_MISMATCH'] },
  { name: 'Convert currencies', weight: 1, failures: ['E_MISSING_FX_RATE'] },
];
export const PROCESS_STEPS: readonly StepStyle[] = [
  { name: 'Apply corporate actions', weight: 2, failures: ['E_MISSING_REFERENCE'] },
  { name: 'Deduplicate records', weight: 1, failures: ['E_DUPLICATE_KEYS'] },
  { name: 'Compute derived fields', weight: 3, failures: ['E_NULL_CONSTRAINT', 'E_OUT_OF_MEMORY'] },
  { name: 'Run quality checks', weight: 2, failures: ['E_QUALITY_THRESHOLD'] },
  { name: 'Build snapshot', weight: 2, failures: ['E_OUT_OF_MEMORY'] },
];
export const DISPATCH_FAILURES: readonly string[] = [
  'E_DEST_UNREACHABLE',
  'E_PERMISSION_DENIED',
  'E_QUOTA_EXCEEDED',
];
