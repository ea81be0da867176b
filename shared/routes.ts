/**
 * Places in the window another part of the app can send the user to (a notification, the tray), as the
 * window's hash-history paths (renderer/src/router.ts declares the same shapes).
 */
export type WindowTarget =
  | { view: 'delivery'; orgId: string; datasetId: string; deliveryId: string }
  | { view: 'dataset'; orgId: string; datasetId: string }
  /** The org's datasets. */
  | { view: 'datasets'; orgId: string }
  /** The org's datasets filtered to FAILED (a summary's destination). */
  | { view: 'failed'; orgId: string }
  /**
   * The org's incidents (Triage), with one incident opened when `incidentId` is given, or a cause's
   * newest incident when only `causeId` is (a failure no incident holds).
   */
  | { view: 'triage'; orgId: string; incidentId?: string; causeId?: string }
  | { view: 'home' };

const segment = encodeURIComponent;

export function targetPath(target: WindowTarget): string {
  switch (target.view) {
    case 'delivery':
      return `/orgs/${segment(target.orgId)}/datasets/${segment(target.datasetId)}/deliveries/${segment(target.deliveryId)}`;
    case 'dataset':
      return `/orgs/${segment(target.orgId)}/datasets/${segment(target.datasetId)}`;
    case 'datasets':
      return `/orgs/${segment(target.orgId)}/datasets`;
    case 'failed':
      return `/orgs/${segment(target.orgId)}/datasets?status=FAILED`;
    case 'triage':
      return `/orgs/${segment(target.orgId)}/triage${
        target.incidentId !== undefined
          ? `?incident=${segment(target.incidentId)}`
          : target.causeId !== undefined
            ? `?cause=${segment(target.causeId)}`
            : ''
      }`;
    case 'home':
      return '/';
  }
}
