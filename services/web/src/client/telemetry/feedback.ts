// The feedback widget: its own chunk, added after hydration so it costs nothing before the page is interactive.
import * as Sentry from '@sentry/react';

const FEEDBACK_LABELS = {
  triggerLabel: 'Feedback',
  triggerAriaLabel: 'Send feedback',
  formTitle: 'Send feedback',
  submitButtonLabel: 'Send',
  messagePlaceholder: 'What happened? What did you expect?',
  successMessageText: 'Thank you for your feedback!',
};

export function addFeedbackWidget(styleNonce: string | undefined): void {
  if (!Sentry.getClient()) return;
  Sentry.addIntegration(
    Sentry.feedbackIntegration({
      ...FEEDBACK_LABELS,
      autoInject: true,
      colorScheme: 'light',
      enableScreenshot: false,
      ...(styleNonce ? { styleNonce } : {}),
    }),
  );
}
