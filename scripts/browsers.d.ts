import { ChromeLauncher } from '@web/test-runner-chrome';

/** The browser tests' Firefox: a finished test file's page not left within `leaveWithin` ms (30 s) ends that Firefox. */
export class FirefoxLauncher extends ChromeLauncher {
  constructor(options?: { leaveWithin?: number; executablePath?: string });
}
